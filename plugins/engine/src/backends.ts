import { chunksOf, SPEECH_BACKEND_CONTRACT, type BackendInputKind, type BackendSynthesis, type SpeechBackend, type SpeechChunk, type SpeechStream } from '@sawt/core';
import type { VoiceConfig } from './catalog.js';
import { espeakInventory, htsInventory, type PhonemeInventory } from './frontend/phoneme-passages.js';
import type { HtsUtterance } from './hts/labels.js';
import type { Dialect } from './frontend/dialects.js';
import { addOffsets, outputEqOffset, type OutputEq } from './hts/output-eq.js';
import { clamp } from './hts/voice-mapping.js';
import { ESPEAK_RATE_RANGE, synthesizeHtsStream, synthesizeStream } from '@sawt/native';

/** A back end of this plugin, or one a plugin added (whose voices carry no engine parameters). */
export type EngineBackend = SpeechBackend<unknown, VoiceConfig>;

/** Phones the front end writes for a back end: espeak-ng mnemonics in [[ ]] (Piper reads them too), or HTS phone spans. */
export const phonesFor = (input: BackendInputKind): 'espeak' | 'hts' => (input === 'hts-labels' ? 'hts' : 'espeak');

/** What `modelId` can say in [[ ]] passages, by the phones its back end reads. */
export function phonemeInventoryOf(input: BackendInputKind, modelId: string): PhonemeInventory {
  return phonesFor(input) === 'hts' ? htsInventory(modelId) : espeakInventory(modelId);
}

/** A native stream's chunks as `job`'s: `isLast` on the end of its last sentence (the stream's end event has no audio). */
async function* nativeChunks(source: SpeechStream, job: BackendSynthesis<unknown, unknown>): AsyncIterable<SpeechChunk> {
  const last = job.sentences.length - 1;
  for await (const { pcm, info } of chunksOf(source, job.signal) as AsyncIterable<Pick<SpeechChunk, 'pcm' | 'info'>>) {
    yield { pcm, sampleRate: job.sampleRate, isLast: info.segmentEnd && info.segment === last, info };
  }
}

/**
 * Semitones above pitch 0 of espeak-ng's pitch 0, 10, …, 100 (the median F0 of the Arabic voice
 * on one sentence, measured: 67.9 Hz at 0 … 100.6 Hz at 50 … 169.1 Hz at 100; its +m3 and +f2
 * variants follow within 0.3 st an octave). Not linear: about 7 steps a semitone low, 5.5 high.
 */
const ESPEAK_PITCH_SEMITONES = [0, 1.06, 2.4, 3.75, 5.2, 6.81, 8.59, 10.3, 12.16, 14.09, 15.8];

/** espeak-ng's pitch value `pitch` shifted by `semitones` (interpolated in the table; 0–100). */
export function espeakPitchShifted(pitch: number, semitones: number): number {
  const t = ESPEAK_PITCH_SEMITONES;
  const p = clamp(pitch, 0, 100);
  if (!semitones) return p;
  const i = Math.min(9, Math.floor(p / 10));
  const target = t[i]! + ((p - i * 10) / 10) * (t[i + 1]! - t[i]!) + semitones;
  if (target <= 0) return 0;
  if (target >= t[10]!) return 100;
  const j = t.findIndex((v, k) => k < 10 && target < t[k + 1]!);
  return j * 10 + ((target - t[j]!) / (t[j + 1]! - t[j]!)) * 10;
}

/**
 * Output settings of every HTS voice, chosen by DNSMOS on the front end's own output
 * (bench/hts-quality.js): the gain before the soft limiter (dB; -6 drove long vowels into the
 * limiter's knee), the mel-cepstral postfilter (HTS beta; none: every value tried lowered OVRL), a
 * high-pass at 10 Hz (the all-positive pulse train left a DC offset and rumble 14 dB below the speech:
 * OVRL 3.151 → 3.209 on 10 tuning sentences; 10–35 Hz all within 0.01) and an output EQ (a high
 * shelf, see hts/output-eq.ts). Phase dispersion of each pulse (an all-pass chirp, prototyped in the
 * vocoder) was measured and dropped: 3, 5 and 8 ms gave OVRL 3.208, 3.214 and 3.207 against 3.213
 * on the 20 tuning sentences, for about 25 % more vocoding time.
 */
export const HTS_QUALITY_DEFAULTS = { gainDb: -9, postfilter: 0, highpassHz: 10 } as const;
export const HTS_OUTPUT_EQ: OutputEq = { db: 3, fromHz: 2500, toHz: 4000 };

/** espeak-ng formant synthesis: speed scales words per minute, stability narrows the pitch range. */
export class EspeakBackend implements SpeechBackend<string, VoiceConfig> {
  readonly contract = SPEECH_BACKEND_CONTRACT;
  readonly engine = 'espeak';
  readonly input = 'text';
  /** espeak-ng's words per minute (80–450) around the voices' own rates (172–209). */
  readonly rateRange = { min: 0.5, max: 2 };

  /** @param chunkMs audio is sent in pieces of about this length as a segment is synthesized (0 = whole segments). */
  constructor(private readonly chunkMs: number) {}

  acceptsVoice(voice: VoiceConfig): boolean {
    return voice.espeak !== undefined;
  }

  synthesize(job: BackendSynthesis<string, VoiceConfig>): AsyncIterable<SpeechChunk> {
    const p = job.voice.espeak!;
    return nativeChunks(synthesizeStream({
      segments: job.sentences,
      voice: p.voice,
      rate: Math.round(clamp(p.rate * job.speed, ESPEAK_RATE_RANGE.min, ESPEAK_RATE_RANGE.max)),
      pitch: Math.round(espeakPitchShifted(p.pitch, job.pitchSemitones ?? 0)),
      range: Math.round(clamp(p.range + (0.5 - job.stability) * 60, 0, 100)),
      sampleRate: job.sampleRate,
      phonemeInput: job.sentences.some((s) => s.includes('[[')),
      chunkMs: this.chunkMs,
      urgent: job.urgency === 'urgent',
    }), job);
  }
}

/**
 * The Arabic HMM voice on the addon's pool of HTS engines, an utterance per sentence: stability lowers the
 * log-F0 global-variance weight and the F0 spread; the voice's dialect scales the prosody.
 */
export class HtsBackend implements SpeechBackend<HtsUtterance, VoiceConfig> {
  readonly contract = SPEECH_BACKEND_CONTRACT;
  readonly engine = 'hts';
  readonly input = 'hts-labels';
  /** HTS_Engine_set_speed takes 0.25–4; the voices' and dialects' own speed factors stay within it. */
  readonly rateRange = { min: 0.3, max: 3 };

  /** @param voicePath the .htsvoice file; null when no hts model is configured. */
  constructor(
    readonly voicePath: string | null,
    private readonly chunkMs: number,
    private readonly threads = 2,
    private readonly dialects: ReadonlyMap<string, Dialect> = new Map(),
  ) {}

  acceptsVoice(voice: VoiceConfig): boolean {
    return voice.hts !== undefined;
  }

  synthesize(job: BackendSynthesis<HtsUtterance, VoiceConfig>): AsyncIterable<SpeechChunk> {
    if (!this.voicePath) throw new Error('no HTS voice file is configured');
    const p = job.voice.hts!;
    const prosody = this.dialects.get(job.voice.dialect[0] ?? '')?.htsProsody ?? { speed: 1, f0Spread: 1, halfTone: 0 };
    const utterances = job.sentences;
    const lively = 0.5 - job.stability; // -0.5 … 0.5
    return nativeChunks(synthesizeHtsStream({
      voicePath: this.voicePath,
      // Word timings for the chunks' info (the WebSocket's alignment); textOffset is into the segment text.
      utterances: utterances.map((u) => u.labels),
      words: utterances.map((u) => u.words),
      // Sounds the voice never learned (a dialect's /g/): said with a voiced closure.
      ...(utterances.some((u) => u.voicedClosures.length) && { voicedClosures: utterances.map((u) => u.voicedClosures) }),
      speed: clamp(job.speed * (p.speed ?? 1) * prosody.speed, 0.25, 4),
      halfTone: clamp((p.halfTone ?? 0) + prosody.halfTone + (job.pitchSemitones ?? 0), -24, 24),
      f0Spread: clamp((p.f0Spread ?? 1) * prosody.f0Spread * (1 + lively * 0.4), 0, 4),
      ...(p.alpha !== undefined && { alpha: p.alpha }),
      mgcOffset: addOffsets(p.mgcOffset, outputEqOffset(HTS_OUTPUT_EQ, p.alpha)),
      gvWeightLf0: clamp(1 + lively * 0.6, 0, 4),
      ...HTS_QUALITY_DEFAULTS,
      sampleRate: job.sampleRate,
      chunkMs: this.chunkMs,
      threads: this.threads,
      urgent: job.urgency === 'urgent',
      ...(job.background === true && { background: true }),
    }), job);
  }
}
