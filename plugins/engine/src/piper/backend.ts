/**
 * The `piper` engine back end: any Piper-format voice (VITS in ONNX and its .onnx.json), fed the front
 * end's segments as espeak-ng IPA (frontend/ready-input.ts), one sentence a run. speed divides
 * length_scale; noise_scale and noise_w are multiplied by 1.5 − stability (too much noise slurs). A long
 * first sentence is cut (firstChunkChars) for sooner audio, at the price of a phrase boundary there.
 */
import { SPEECH_BACKEND_CONTRACT, type BackendSynthesis, type SpeechBackend, type SpeechChunk } from '@sawt/core';
import type { PiperVoiceParams, VoiceConfig } from '../catalog.js';
import { PiperSession } from '@sawt/native';
import { piperSentences } from './phonemes.js';
import { piperChunks, type PiperPiece } from './stream.js';
import { readPiperVoiceConfig, speakerId, type PiperVoiceConfig } from './voice-config.js';

export interface PiperOptions {
  /** Threads of one ONNX run (intra-op). */
  threads: number;
  /** Silence after each sentence, ms (Piper's sentence_silence, 0.2 s). */
  sentenceSilenceMs: number;
  /** The first part of a long first sentence is at most this many characters (0: no cut). */
  firstChunkChars: number;
}

/** A loaded Piper voice file. */
export interface LoadedPiper {
  modelId: string;
  session: PiperSession;
  config: PiperVoiceConfig;
  /** Speaker id per voice_id of the voices of this model. */
  speakers: Map<string, number>;
}

/** Probe text for the id-map check: every Arabic letter, vowel mark, tanween, shadda and the punctuation Piper keeps. */
export const ARABIC_PROBE = [
  'أَبْجَدْ هَوَّزْ حُطِّي كَلَمُنْ سَعْفَصْ قُرِشَتْ ثَخَذْ ضَظَغْ.',
  'ذَهَبَ الطَّالِبُ إِلَى الْمَدْرَسَةِ صَبَاحًا، وَعَادَ مَسَاءً؛ فَهَلْ رَأَيْتَهُ؟',
  'يَا لَهُ مِنْ يَوْمٍ جَمِيلٍ! قَالَ: شُكْرًا لَكُمْ، وَلَئِنْ سَأَلْتَهُمْ عَنْ شَيْءٍ مُؤْلِمٍ.',
  'ظَلَّ الضَّابِطُ يُغَنِّي فِي الْقَاعَةِ، وَالْعُيُونُ تَنْظُرُ إِلَيْهِ.',
].join(' ');

export class PiperBackend implements SpeechBackend<PiperPiece, VoiceConfig> {
  readonly contract = SPEECH_BACKEND_CONTRACT;
  readonly engine = 'piper';
  readonly input = 'piper-phonemes';
  /** length_scale = the voice's / rate (kept within 0.05–20): rates beyond these sound broken. */
  readonly rateRange = { min: 0.3, max: 3 };
  private readonly files = new Map<string, LoadedPiper>();

  constructor(private readonly options: PiperOptions, private readonly chunkMs: number, private readonly warn: (o: object, m: string) => void) {}

  acceptsVoice(voice: { piper?: PiperVoiceParams }): boolean {
    return voice.piper !== undefined;
  }

  /** Adds a loaded voice file for `modelId`. */
  add(loaded: LoadedPiper): void {
    this.files.set(loaded.modelId, loaded);
  }

  loaded(modelId: string): LoadedPiper | undefined {
    return this.files.get(modelId);
  }

  release(): void {
    for (const v of this.files.values()) v.session.release();
    this.files.clear();
  }

  synthesize(job: BackendSynthesis<PiperPiece, VoiceConfig>): AsyncIterable<SpeechChunk> {
    const modelId = job.model.model_id;
    const loaded = this.files.get(modelId);
    if (!loaded) throw new Error(`Piper model '${modelId}' is not loaded`);
    const { config } = loaded;
    const p = job.voice.piper ?? {};
    const noise = 1.5 - job.stability;
    return piperChunks({
      session: loaded.session,
      config,
      pieces: job.sentences,
      scales: {
        noiseScale: (p.noiseScale ?? config.inference.noiseScale) * noise,
        lengthScale: Math.min(20, Math.max(0.05, (p.lengthScale ?? config.inference.lengthScale) / job.speed)),
        noiseW: (p.noiseW ?? config.inference.noiseW) * noise,
      },
      sid: loaded.speakers.get(job.voice.voice_id) ?? 0,
      sampleRate: job.sampleRate,
      chunkMs: this.chunkMs,
      sentenceSilenceMs: this.options.sentenceSilenceMs,
      onMissing: (missing) => this.warn({ model: modelId, missing: [...new Set(missing)] }, 'phonemes missing from the Piper id map were skipped'),
      signal: job.signal,
    });
  }
}

/** Loads a Piper voice file and checks it against its config and voices; every failure is a start-up Error. */
export async function loadPiper(input: {
  modelId: string;
  onnx: string;
  json: string;
  voices: Array<{ voice_id: string; piper: PiperVoiceParams }>;
  executionProvider: 'cpu' | 'cuda';
  threads: number;
}): Promise<LoadedPiper> {
  const config = readPiperVoiceConfig(input.json);
  const speakers = new Map(input.voices.map((v) => [v.voice_id, speakerId(config, v.piper.speaker, v.voice_id)]));
  if (input.voices.length === 0) throw new Error(`model '${input.modelId}' (engine piper) has no voice: add a voice with "models": ["${input.modelId}"] and a "piper" entry`);
  let session: PiperSession;
  try {
    session = await PiperSession.create(input.onnx, { executionProvider: input.executionProvider, intraOpThreads: input.threads });
  } catch (error) {
    throw new Error(`model '${input.modelId}': ${(error as Error).message}`, { cause: error });
  }
  if (session.hasSid !== config.numSpeakers > 1) {
    session.release();
    throw new Error(`model '${input.modelId}': ${input.json} says num_speakers ${config.numSpeakers}, but ${input.onnx} ${session.hasSid ? 'has' : 'has no'} speaker input 'sid'`);
  }
  if (config.espeakVoice === 'ar') {
    const missing = new Set<string>();
    for (const sentence of await piperSentences(ARABIC_PROBE, 'ar', config.phonemeMap)) for (const p of sentence) if (!config.idMap.has(p)) missing.add(p);
    if (missing.size) {
      session.release();
      throw new Error(`model '${input.modelId}': the phoneme_id_map of ${input.json} lacks ${[...missing].map((p) => `'${p}' (U+${p.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')})`).join(', ')}, which espeak-ng voice 'ar' produces for Arabic text`);
    }
  }
  return { modelId: input.modelId, session, config, speakers };
}
