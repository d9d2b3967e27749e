import type { SpeechStream } from '@sawt/core';
import type { VoiceConfig } from './catalog.js';
import { errors, observeSpeech } from '@sawt/core';
import { espeakInventory, htsInventory, type PhonemeInventory } from './frontend/phoneme-passages.js';
import { DEFAULT_LABEL_OPTIONS, textToUtterances, type HtsUtterance, type LabelOptions, type PhoneRewrite } from './hts/labels.js';
import type { Dialect } from './frontend/dialects.js';
import { addOffsets, outputEqOffset, type OutputEq } from './hts/output-eq.js';
import { ESPEAK_RATE_RANGE, synthesizeHtsStream, synthesizeStream } from '@sawt/native';

/** Settings an engine back end receives after validation and the text front end. */
export interface BackendRequest {
  /** The model being spoken (a back end may hold several, e.g. Piper voice files). */
  modelId: string;
  segments: string[];
  phonemeInput: boolean;
  voice: VoiceConfig;
  speed: number;
  stability: number;
  sampleRate: number;
  /** The first segment goes ahead of other syntheses' later segments (the first audio of a request). */
  urgent?: boolean;
}

/** One synthesis technology (espeak-ng today; HTS and VITS voices plug in here). */
export interface SpeechBackend {
  readonly engine: string;
  /** Phones the back end reads: espeak mnemonics inside [[ ]] (dialect rules rewrite them), HTS phone spans; null: none. */
  readonly phonemes: 'espeak' | 'hts' | null;
  /** What the model can say in [[ ]] passages (default: by `phonemes`, see phonemeInventoryOf). */
  phonemeInventory?(modelId: string): PhonemeInventory;
  /** Voices of this back end must carry its parameters; checked at boot. */
  acceptsVoice(voice: VoiceConfig): boolean;
  synthesize(req: BackendRequest): SpeechStream;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/**
 * The phoneme inventory of `modelId` on `backend`: its own, else by the phones it reads (espeak
 * mnemonics: espeak-ng's Arabic table, which Piper voices also read passages through; HTS: the
 * symbols mapped onto its phone set); a back end that reads no phones says none.
 */
export function phonemeInventoryOf(backend: SpeechBackend, modelId: string): PhonemeInventory {
  if (backend.phonemeInventory) return backend.phonemeInventory(modelId);
  if (backend.phonemes === 'espeak') return espeakInventory(modelId);
  if (backend.phonemes === 'hts') return htsInventory(modelId);
  return { model: modelId, says: () => false };
}

/**
 * `source` passed on, except that a synthesis that ends without a single sample is an error
 * (400 / 40001, nothing speakable) instead of an empty success: the client gets no empty WAV and
 * the paid path, which settles only delivered audio, releases the reservation.
 */
export function refuseSilence(source: SpeechStream): SpeechStream {
  let samples = 0;
  return observeSpeech(source, (chunk) => (samples += chunk.info.samples), () => (samples === 0 ? errors.validation('text contains nothing that can be spoken (its audio is empty)') : null));
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
      rate: Math.round(clamp(p.rate * req.speed, ESPEAK_RATE_RANGE.min, ESPEAK_RATE_RANGE.max)),
      pitch: Math.round(clamp(p.pitch, 0, 100)),
      range: Math.round(clamp(p.range + (0.5 - req.stability) * 60, 0, 100)),
      sampleRate: req.sampleRate,
      phonemeInput: req.phonemeInput,
      chunkMs: this.chunkMs,
      urgent: req.urgent ?? true,
    });
  }
}

/**
 * The Arabic HMM voice through the HTS engine: Sawt's label front end turns each
 * (diacritized) segment into full-context labels, one utterance per sentence;
 * the addon synthesizes them on its pool of engines. speed scales durations
 * (HTS_Engine_set_speed); stability lowers the log-F0 global-variance weight and
 * the F0 spread (higher stability: flatter, steadier pitch).
 */
export class HtsBackend implements SpeechBackend {
  readonly engine = 'hts';
  readonly phonemes = 'hts' as const;

  /** @param voicePath the .htsvoice file; null when no hts model is configured. */
  constructor(
    private readonly voicePath: string | null,
    private readonly chunkMs: number,
    private readonly labelOptions: LabelOptions = DEFAULT_LABEL_OPTIONS,
    private readonly threads = 2,
    /** Dialect files: a voice's first dialect rewrites the phones (its `hts` rules) and scales the prosody. */
    private readonly dialects: ReadonlyMap<string, Dialect> = new Map(),
  ) {}

  voicePathIfAny(): string | null {
    return this.voicePath;
  }

  acceptsVoice(voice: VoiceConfig): boolean {
    return voice.hts !== undefined;
  }

  /** Labels per utterance with their words (offsets into the segment text each came from). */
  utterances(segments: string[], rewrite?: PhoneRewrite): HtsUtterance[] {
    return segments.flatMap((s) => textToUtterances(s, this.labelOptions, rewrite));
  }

  synthesize(req: BackendRequest): SpeechStream {
    if (!this.voicePath) throw errors.internal('no HTS voice file is configured');
    const p = req.voice.hts!;
    const dialect = this.dialects.get(req.voice.dialect[0] ?? '');
    const parsed = this.utterances(req.segments, dialect?.hasHtsRules ? (phones) => dialect.applyHts(phones) : undefined);
    const prosody = dialect?.htsProsody ?? { speed: 1, f0Spread: 1, halfTone: 0 };
    if (parsed.length === 0) throw errors.validation('text contains nothing the Arabic voice can speak');
    const lively = 0.5 - req.stability; // -0.5 … 0.5
    return synthesizeHtsStream({
      voicePath: this.voicePath,
      // Word timings for the chunks' info (the WebSocket's alignment). The stream's segment index counts
      // utterances (sentences), which may be more than req.segments; textOffset is into the segment text.
      utterances: parsed.map((u) => u.labels),
      words: parsed.map((u) => u.words),
      // Sounds the voice never learned (a dialect's /g/): said with a voiced closure.
      ...(parsed.some((u) => u.voicedClosures.length) && { voicedClosures: parsed.map((u) => u.voicedClosures) }),
      speed: clamp(req.speed * (p.speed ?? 1) * prosody.speed, 0.25, 4),
      halfTone: clamp((p.halfTone ?? 0) + prosody.halfTone, -24, 24),
      f0Spread: clamp((p.f0Spread ?? 1) * prosody.f0Spread * (1 + lively * 0.4), 0, 4),
      ...(p.alpha !== undefined && { alpha: p.alpha }),
      mgcOffset: addOffsets(p.mgcOffset, outputEqOffset(HTS_OUTPUT_EQ, p.alpha)),
      gvWeightLf0: clamp(1 + lively * 0.6, 0, 4),
      ...HTS_QUALITY_DEFAULTS,
      sampleRate: req.sampleRate,
      chunkMs: this.chunkMs,
      threads: this.threads,
      urgent: req.urgent ?? true,
    });
  }
}
