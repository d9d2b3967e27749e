import type { SpeechStream } from '@sawt/core';
import type { VoiceConfig } from './catalog.js';
import { synthesizeStream } from './native/index.js';

/** Settings an engine back end receives after validation and the text front end. */
export interface BackendRequest {
  segments: string[];
  phonemeInput: boolean;
  voice: VoiceConfig;
  speed: number;
  stability: number;
  sampleRate: number;
}

/** One synthesis technology (espeak-ng today; HTS and VITS voices plug in here). */
export interface SpeechBackend {
  readonly engine: string;
  /** Phoneme alphabet the back end reads inside [[ ]] (dialect rules rewrite it); null: none. */
  readonly phonemes: 'espeak' | null;
  /** Voices of this back end must carry its parameters; checked at boot. */
  acceptsVoice(voice: VoiceConfig): boolean;
  synthesize(req: BackendRequest): SpeechStream;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/**
 * espeak-ng formant synthesis. speed scales the speaking rate (espeak's duration
 * is inversely proportional to words per minute); stability narrows the pitch
 * range, so lower stability gives livelier, more varied prosody.
 */
export class EspeakBackend implements SpeechBackend {
  readonly engine = 'espeak';
  readonly phonemes = 'espeak' as const;

  /** @param chunkMs audio is sent in pieces of about this length as a segment is synthesized (0 = whole segments). */
  constructor(private readonly chunkMs: number) {}

  acceptsVoice(voice: VoiceConfig): boolean {
    return voice.espeak !== undefined;
  }

  synthesize(req: BackendRequest): SpeechStream {
    const p = req.voice.espeak!;
    return synthesizeStream({
      segments: req.segments,
      voice: p.voice,
      rate: Math.round(clamp(p.rate * req.speed, 80, 450)),
      pitch: Math.round(clamp(p.pitch, 0, 100)),
      range: Math.round(clamp(p.range + (0.5 - req.stability) * 60, 0, 100)),
      sampleRate: req.sampleRate,
      phonemeInput: req.phonemeInput,
      chunkMs: this.chunkMs,
    });
  }
}
