/** The contract of a speech back end, the one way a model enters Sawt (even the engine's own register through it). */
import type { ModelInfo, SpeechChunk } from './services/index.js';
import type { Urgency } from './scheduling.js';

/** The contract's version; a back end made for another fails the boot. Fields added since are optional. */
export const SPEECH_BACKEND_CONTRACT = 1;

/** What a back end reads per sentence from the front end: text, HTS full-context labels, or Piper's IPA. */
export type BackendInputKind = 'text' | 'hts-labels' | 'piper-phonemes';

/** A model a back end brings (GET /models lists it; billing charges its price). */
export interface BackendModel {
  model_id: string;
  model_name: string;
  description?: string | null;
  /** Price per character, decimal (e.g. "0.00002"). */
  cost_per_char: number | string;
  /** Seconds of audio per character at speed 1.0, measured (the output cap's estimate). */
  seconds_per_char?: number;
  access?: 'public' | 'granted';
  /** The model wants diacritized text (default true). */
  diacritize?: boolean;
}

/** A voice a back end brings (GET /voices lists it). */
export interface BackendVoice {
  voice_id: string;
  name: string;
  description?: string | null;
  gender?: 'male' | 'female' | null;
  age?: 'middle' | 'elderly' | null;
  languages: string[];
  dialect: string[];
  /** model_ids it speaks on; absent: every model of its back end. */
  models?: string[];
}

/** One synthesis handed to a back end: everything resolved and ready. */
export interface BackendSynthesis<Input, Voice = BackendVoice> {
  model: ModelInfo;
  voice: Voice;
  /** The sentences in the form the back end reads (its `input`); never empty. */
  sentences: Input[];
  /** 0.7–1.2 */
  speed: number;
  /** 0–1 */
  stability: number;
  /** Pitch shift in semitones (0 or absent: the voice's own); a back end may ignore it (Piper's do). */
  pitchSemitones?: number;
  /** The rate the request wants; a back end with a `sampleRate` of its own yields that one (the engine resamples). */
  sampleRate: number;
  /** A request's first sentences are 'urgent' (nothing is heard before them). */
  urgency: Urgency;
  /** Work nobody waits to hear (a long-form job's part): a back end may run it below live requests. */
  background?: boolean;
  /** Aborted when nobody wants the audio any more: stop the work and return. */
  signal: AbortSignal;
}

export interface SpeechBackend<Input = unknown, Voice extends { voice_id: string } = BackendVoice> {
  /** SPEECH_BACKEND_CONTRACT as the back end was written for it. */
  readonly contract: number;
  /** The engine name its models carry (ModelInfo.engine); one back end per engine. */
  readonly engine: string;
  readonly input: BackendInputKind;
  /** Models and voices it brings; the built-in back ends' come from the engine plugin's options. */
  readonly models?: BackendModel[];
  readonly voices?: BackendVoice[];
  /** The one rate it yields, if it cannot make every output rate (8000, 16000, 22050, 24000). */
  readonly sampleRate?: number;
  /** The speaking rates it renders (default 0.5 to 2); a rate outside them is a 400. */
  readonly rateRange?: { min: number; max: number };
  /** Longest wait for the next chunk before the synthesis fails with 503 (ms; default 30000). */
  readonly chunkTimeoutMs?: number;
  /** Whether `voice` carries what this back end needs to speak it (checked at boot). */
  acceptsVoice(voice: Voice): boolean;
  /** The audio, chunk by chunk as it is generated; `info.segment` counts `job.sentences` from 0. */
  synthesize(job: BackendSynthesis<Input, Voice>): AsyncIterable<SpeechChunk>;
}

/** Where back ends register (tokens.speechBackends), in a plugin's register(). */
export interface SpeechBackendRegistry {
  /** Adds `backend` with its models and voices; throws when its contract version is not this server's. */
  add(backend: SpeechBackend<unknown, { voice_id: string }>): void;
}

/** Throws, naming the engine, when `backend` was written for another contract version. */
export function checkBackendContract(backend: { engine?: unknown; contract?: unknown }): void {
  if (backend.contract !== SPEECH_BACKEND_CONTRACT) {
    throw new Error(`speech back end '${String(backend.engine)}' implements contract version ${String(backend.contract)}, but this server speaks version ${SPEECH_BACKEND_CONTRACT}`);
  }
}
