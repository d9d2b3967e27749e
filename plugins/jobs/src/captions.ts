/**
 * Sentence captions of a job: cues timed from the engine's word timings (core's AlignmentBuilder,
 * exact mode, so every character of a part has a time), written as WebVTT or SubRip.
 */
import { AlignmentBuilder, type ChunkInfo } from '@sawt/core';
import { sentenceStarts } from './parts.js';
import type { Chapter } from './spoken-text.js';

/** One caption: start and end (ms), its text, and its offset in the spoken text. */
export interface Cue {
  s: number;
  e: number;
  t: string;
  at: number;
}

/** A timed chapter (GET …/chapters). */
export interface TimedChapter {
  title: string;
  start_seconds: number;
}

/** Longest cue text before a sentence is shown in several cues (readable captions). */
const CUE_CHARS = 160;

/** Times the sentences of one part while its audio is generated. */
export class PartCues {
  private readonly alignment: AlignmentBuilder;
  private samples = 0;

  constructor(private readonly text: string, private readonly start: number, private readonly sampleRate: number) {
    this.alignment = new AlignmentBuilder(text, sampleRate, { exact: true });
  }

  add(info: ChunkInfo): void {
    this.alignment.add(info);
    this.samples += info.samples;
  }

  /** The part's cues, in order, covering its audio from 0 to its end (ms from the part's start). */
  finish(): Cue[] {
    const a = this.alignment.finish() ?? { chars: [], charStartTimesMs: [], charDurationsMs: [] };
    // Alignment characters are code points; sentence offsets are UTF-16 indices.
    const timeAt: number[] = new Array(this.text.length + 1);
    let cp = 0;
    for (let i = 0; i < this.text.length; cp++) {
      const width = (this.text.codePointAt(i)! > 0xffff) ? 2 : 1;
      timeAt[i] = a.charStartTimesMs[cp] ?? Number.NaN;
      if (width === 2) timeAt[i + 1] = timeAt[i]!;
      i += width;
    }
    const endMs = Math.round((this.samples / this.sampleRate) * 1000);
    const starts = sentenceStarts(this.text, 0, this.text.trimEnd().length, CUE_CHARS);
    const cues: Cue[] = [];
    let prevStart = 0;
    for (let k = 0; k < starts.length; k++) {
      const from = starts[k]!;
      const to = k + 1 < starts.length ? starts[k + 1]! : this.text.length;
      const t = this.text.slice(from, to).replace(/\s+/gu, ' ').trim();
      if (!t) continue;
      // Times never go back (an unreported word is timed at the audio's end).
      const s = Math.min(Math.max(Number.isFinite(timeAt[from]!) ? timeAt[from]! : prevStart, prevStart), endMs);
      prevStart = s;
      cues.push({ s, e: endMs, t, at: this.start + from });
    }
    if (cues.length) cues[0]!.s = 0;
    for (let k = 0; k + 1 < cues.length; k++) cues[k]!.e = cues[k + 1]!.s;
    // A sentence the engine gave no time of its own (its words unreported, or none of its audio
    // before the next one's) shares the cue before it (or after it, at the start): no text is lost.
    const merged: Cue[] = [];
    for (const c of cues) {
      const prev = merged[merged.length - 1];
      if (prev && prev.e <= prev.s) {
        prev.t = `${prev.t} ${c.t}`;
        prev.e = c.e;
      } else if (prev && c.e <= c.s) {
        prev.t = `${prev.t} ${c.t}`;
        prev.e = Math.max(prev.e, c.e);
      } else merged.push({ ...c });
    }
    return merged;
  }
}

/** The chapters' start times: each at the cue holding its first character. */
export function timeChapters(chapters: Chapter[], cues: Cue[]): TimedChapter[] {
  let k = 0;
  return chapters.map((c) => {
    while (k + 1 < cues.length && cues[k + 1]!.at <= c.at) k++;
    return { title: c.title, start_seconds: Math.round(cues[k]?.s ?? 0) / 1000 };
  });
}

function clock(ms: number, sep: '.' | ','): string {
  const total = Math.max(0, Math.round(ms));
  const h = Math.floor(total / 3_600_000);
  const m = Math.floor((total % 3_600_000) / 60_000);
  const s = Math.floor((total % 60_000) / 1000);
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${pad(h)}:${pad(m)}:${pad(s)}${sep}${pad(total % 1000, 3)}`;
}

export function toWebVtt(cues: Cue[]): string {
  return `WEBVTT\n\n${cues.map((c, i) => `${i + 1}\n${clock(c.s, '.')} --> ${clock(c.e, '.')}\n${c.t}\n`).join('\n')}`;
}

export function toSrt(cues: Cue[]): string {
  return cues.map((c, i) => `${i + 1}\n${clock(c.s, ',')} --> ${clock(c.e, ',')}\n${c.t}\n`).join('\n');
}
