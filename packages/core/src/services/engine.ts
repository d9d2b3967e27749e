/** Models, voices, synthesis and the text front end (the engine plugin). */
import type { Readable } from 'node:stream';
import type { DictionaryLocator, PronunciationDictionaries, PronunciationRule } from './pronunciation.js';

export interface ModelInfo {
  /** Stable UUID of the record. */
  id: string;
  model_id: string;
  model_name: string;
  description: string | null;
  engine: string;
  /** Decimal cost per character, as configured. */
  cost_per_char: number;
  costPerCharMicro: number;
  /** Measured seconds of audio per billable character at speed 1.0 (the output cap's estimate); null: not measured. */
  secondsPerChar?: number | null;
  /** 'public': every account; 'granted': only accounts granted it. */
  access: 'public' | 'granted';
  /** False when the model's files are missing; unavailable models are not listed by GET /models. */
  available: boolean;
  /** Files `sawt models pull` can fetch into SAWT_MODELS_DIR for this model. */
  downloads: ModelDownload[];
  /** The voice a client gets first for this model (GET /models); null when no built-in voice speaks on it. */
  default_voice_id?: string | null;
}

export interface ModelDownload {
  /** Path in the models layout (relative to SAWT_MODELS_DIR). */
  file: string;
  url: string;
  sha256: string;
}

/** The values the interface gives a voice's gender, age and type; null besides means unknown. */
export const VOICE_GENDERS = ['male', 'female'] as const;
export const VOICE_AGES = ['middle', 'elderly'] as const;
export const VOICE_TYPES = ['neural'] as const;
/** A named set of model files (a catalog model or a front-end part), for `sawt models pull` and `verify`. */
export interface ModelPart {
  name: string;
  /** Files the part needs (models layout). */
  files: string[];
  downloads: ModelDownload[];
}

/** A voice as the API lists it (interface: Voice). */
export interface VoiceInfo {
  voice_id: string;
  name: string;
  description: string | null;
  gender: string | null;
  age: string | null;
  languages: string[];
  dialect: string[];
  type: string | null;
  sample_url: string;
  /** model_ids the voice speaks on (offered models); absent: every offered model (a cloned voice). */
  models?: string[];
}

export interface ModelCatalog {
  list(): ModelInfo[];
  get(modelId: string): ModelInfo | undefined;
  defaultModelId(): string;
  /** Every catalog model and front-end part with its files and downloads. */
  parts(): ModelPart[];
}

export interface VoiceCatalog {
  /** Voices the account can use; sample URLs are relative paths (the transport makes them absolute). */
  list(accountId: string): Promise<VoiceInfo[]>;
  get(voiceId: string, accountId: string): Promise<VoiceInfo | undefined>;
  /** model_ids a built-in voice works with (undefined: every model, or not a built-in voice). */
  modelsFor?(voiceId: string): string[] | undefined;
}

export interface SynthesisRequest {
  modelId: string;
  voiceId: string;
  accountId: string;
  text: string;
  /** 0.7–1.2 */
  speed: number;
  /** 0–1 */
  stability: number;
  /** Output sample rate; default 24000. */
  sampleRate?: number;
  requestId?: string;
  /** The model and voice as the paid path resolved them (the engine then looks neither up again). */
  model?: ModelInfo;
  voice?: VoiceInfo;
  /** What to read, as SpeechSynthesizer.prepare made it; `text` is then only for logs. Absent: `text` is read as plain text. */
  steps?: SpeechStep[];
  /** Work nobody is waiting to hear (a long-form job's part): live requests go first in every native pool. */
  background?: boolean;
}

/** How a request's text is read: plain text (whose only markup is <break time="…"/>) or SSML. */
export type SpeechTextType = 'text' | 'ssml';

/** The voice settings of a spoken step (SSML <prosody>, <emphasis> folded in). */
export interface SpeechProsody {
  /** Speaking rate multiplier (times the request's speed). */
  rate: number;
  /** Pitch shift in semitones. */
  pitchSemitones: number;
  /** Gain in dB; null: silent (a pause of the same length). */
  volumeDb: number | null;
}

/** One step of reading a prepared text: speak a text with its voice settings, pause, or reach a mark. */
export type SpeechStep =
  | {
    kind: 'speak'; text: string; prosody: SpeechProsody; /** xml:lang; null: the voice's language. */ lang: string | null;
    /** Marks inside the text, each reached where its word (by index on white space) starts in the audio, or at the end. */
    marks?: Array<{ name: string; words: number }>;
  }
  | { kind: 'pause'; ms: number }
  | { kind: 'mark'; name: string };

/** What SpeechSynthesizer.prepare reads: the request's text and what shapes its reading. */
export interface SpeechPreparation {
  modelId: string;
  /** The model as the paid path resolved it. */
  model?: ModelInfo;
  /** The account the request acts for (its dictionaries). */
  accountId: string;
  text: string;
  /** Absent: 'ssml' when the text starts with <speak (or <?xml, <!DOCTYPE), else 'text'. */
  textType?: SpeechTextType;
  /** The request's pronunciation_dictionary_locators (≤ 3; 404 / 40401 for an unknown one). */
  dictionaryLocators?: readonly DictionaryLocator[];
  /** Rules given directly (after the locators' rules), e.g. the CLI's --dictionary file. */
  rules?: readonly PronunciationRule[];
  speed: number;
  /** Apply the 3-word / 10-character rule to the spoken text (default true; a WebSocket checks its flushes itself). */
  textRule?: boolean;
}

/** A request's text made ready for billing and synthesis. */
export interface PreparedSpeech {
  /** The spoken characters (no markup; sub and dictionary aliases as spoken): what billing counts. */
  billableText: string;
  /** What the engine reads, in order (SynthesisRequest.steps). */
  steps: SpeechStep[];
  markup: 'ssml' | 'plain';
}

/** A mark (SSML <mark name>) reached in the audio. */
export interface SpeechMark {
  name: string;
  /** Its time, in ms from the start of the speech's audio (not of the chunk). */
  timeMs: number;
}

/** Where a word starts in the text and in the audio of the chunk that carries it. */
export interface WordTiming {
  /** Start of the word in the segment text, in UTF-16 code units (JS string index). */
  textOffset: number;
  /** Length of the word in UTF-16 code units. */
  length: number;
  /** When the word starts, in ms from the start of the chunk that carries it. */
  audioMs: number;
  /** The request text's word (by index on white space) this spoken word reads; absent: matched in order. */
  sourceWord?: number;
}

/** What the engine reports about one chunk of audio. */
export interface ChunkInfo {
  /** The text segment (usually a sentence) the chunk belongs to, from 0. */
  segment: number;
  /** True on the last chunk of its segment. */
  segmentEnd: boolean;
  /** Samples in the chunk (pcm.length / 2). */
  samples: number;
  words: WordTiming[];
  /** SSML marks reached by the end of this chunk's audio and not carried by an earlier one. */
  marks?: SpeechMark[];
}

/** One chunk of a speech stream: PCM16LE mono with its rate and metadata (as libpiper's piper_audio_chunk). */
export interface SpeechChunk {
  pcm: Buffer;
  /** Rate of `pcm` in Hz (the request's output rate). */
  sampleRate: number;
  /** True on the last chunk of the speech: the stream ends after it. */
  isLast: boolean;
  info: ChunkInfo;
}

/** An object-mode stream of SpeechChunk as the audio is generated; destroying it cancels the synthesis. */
export type SpeechStream = Readable;

export interface SpeechSynthesizer {
  /** Validates (40001/40401) and starts synthesis; audio flows as it is generated. */
  synthesize(request: SynthesisRequest): Promise<SpeechStream>;
  /**
   * The request's text → the spoken text billing counts and the steps synthesis reads; every 400 and
   * 404 of the text comes from here, before money is taken. Absent: SSML and locators are refused.
   */
  prepare?(request: SpeechPreparation): Promise<PreparedSpeech>;
  /** Hands the engine the account dictionaries (the dictionaries plugin registers after it). */
  usePronunciationDictionaries?(dictionaries: PronunciationDictionaries): void;
}

/** Operator-visible stages of the Arabic text front end (`sawt text …`). */
export type TextStageName = 'normalize' | 'diacritize' | 'phonemize';

export interface TextPipelineOptions {
  /** Dialect whose lexicon and phoneme rules apply (e.g. 'egyptian'); null or absent: none. */
  dialect?: string | null;
  /** The model (model_id) whose phones 'phonemize' gives; null or absent: espeak-ng mnemonics. */
  model?: string | null;
  /** Read the text as SSML ('ssml') or plain text with <break> tags ('text'); absent: the text as given, no markup. */
  textType?: SpeechTextType;
  /** Pronunciation rules applied before the stage (e.g. `sawt text --dictionary FILE`). */
  rules?: readonly PronunciationRule[];
}

/** The text front end, stage by stage: each stage runs every stage before it. */
export interface TextPipeline {
  readonly stages: readonly TextStageName[];
  /** Dialects with a rules file. */
  dialects(): string[];
  run(stage: TextStageName, text: string, opts?: TextPipelineOptions): Promise<string>;
  /** run() over many texts at once, in order; model stages batch across them (corpus work). */
  runMany(stage: TextStageName, texts: string[], opts?: TextPipelineOptions): Promise<string[]>;
}
export * from '../speech-backend.js';
