/**
 * Validation of everything handed to the native addon, with sharp-style
 * messages ("Expected <what> for <name> but received <value>"). Each check
 * throws EngineError SAWT_ENGINE_INVALID_ARGUMENT before any native call.
 */
import { inspect } from 'node:util';
import { EngineError } from './errors.js';
import type { Tensor, TensorDescription, TensorType } from './tensor.js';

/** Output rates offered to clients (the addon itself accepts 8000..48000). */
/**
 * The speaking rates (words per minute) espeak synthesis accepts. The addon checks the same range
 * (espeak::kMinRate/kMaxRate in native/espeak_engine.h, exported as espeakRateRange; a test keeps the two equal).
 */
export const ESPEAK_RATE_RANGE = { min: 80, max: 450 } as const;

export const SUPPORTED_SAMPLE_RATES = [8000, 16000, 22050, 24000] as const;
export type SupportedSampleRate = (typeof SUPPORTED_SAMPLE_RATES)[number];

function show(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value === undefined || value === null) return String(value);
  const text = inspect(value, { depth: 1, maxArrayLength: 5, maxStringLength: 40, breakLength: Infinity });
  return `${text} of type ${kind(value)}`;
}

function kind(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (ArrayBuffer.isView(value)) return value.constructor.name;
  return typeof value;
}

export function invalid(expected: string, name: string, value: unknown, received = show(value)): EngineError {
  return new EngineError('SAWT_ENGINE_INVALID_ARGUMENT', `Expected ${expected} for ${name} but received ${received}`);
}

export function numberBetween(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !(value >= min && value <= max)) {
    throw invalid(`a number between ${min} and ${max}`, name, value);
  }
  return value;
}

export function integerBetween(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalid(`an integer between ${min} and ${max}`, name, value);
  }
  return value;
}

export function oneOf<T>(name: string, value: unknown, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) throw invalid(`one of ${allowed.join(', ')}`, name, value);
  return value as T;
}

export function nonEmptyString(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw invalid('a non-empty string', name, value);
  return value;
}

export function string(name: string, value: unknown): string {
  if (typeof value !== 'string') throw invalid('a string', name, value);
  return value;
}

export function optionalBoolean(name: string, value: unknown): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') throw invalid('a boolean', name, value);
  return value;
}

export function object(name: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('an object', name, value);
  return value as Record<string, unknown>;
}

export function nonEmptyStringArray(name: string, value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || !value.every((s) => typeof s === 'string')) {
    throw invalid('a non-empty array of strings', name, value);
  }
  return value as string[];
}

export interface SynthesisOptions {
  segments: string[];
  voice: string;
  /** espeak words per minute, within ESPEAK_RATE_RANGE. */
  rate: number;
  pitch: number;
  range: number;
  sampleRate?: number;
  chunkMs?: number;
  phonemeInput?: boolean;
  maxQueuedChunks?: number;
  /** The first segment goes ahead of the later segments of other syntheses (default true). */
  urgent?: boolean;
}

/** espeak synthesis options as the addon reads them (createSynthesis), once checked. */
export interface NativeSynthesisOptions {
  /** Normalized text pieces, usually sentences; synthesized in order. */
  segments: string[];
  /** espeak-ng voice spec, e.g. 'ar', 'ar+m3'. */
  voice: string;
  /** Words per minute, within espeakRateRange. */
  rate: number;
  /** 0..100. */
  pitch: number;
  /** 0..100. */
  range: number;
  /** Output rate, 8000..48000 (espeak's 22050 Hz is resampled). */
  sampleRate: number;
  /** Chunks allowed to wait for the JS thread (default 4). */
  maxQueuedChunks?: number;
  /** Emit a chunk whenever this much audio is ready in a segment; 0 (default): one per segment. */
  chunkMs?: number;
  /** The text holds [[...]] espeak phoneme mnemonics. */
  phonemeInput?: boolean;
  /**
   * The first segment goes ahead of the later segments of other jobs (default true): every
   * request's first audio waits for at most the segment in progress, not for whole texts.
   */
  urgent?: boolean;
}

/** Checks every synthesis option; fills defaults (sampleRate 24000). */
export function validateSynthesisOptions(options: unknown): NativeSynthesisOptions {
  const o = object('options', options);
  const validated: NativeSynthesisOptions = {
    segments: nonEmptyStringArray('segments', o.segments),
    voice: nonEmptyString('voice', o.voice),
    rate: integerBetween('rate', o.rate, ESPEAK_RATE_RANGE.min, ESPEAK_RATE_RANGE.max),
    pitch: integerBetween('pitch', o.pitch, 0, 100),
    range: integerBetween('range', o.range, 0, 100),
    sampleRate: oneOf('sampleRate', o.sampleRate ?? 24000, SUPPORTED_SAMPLE_RATES),
  };
  if (o.chunkMs !== undefined) validated.chunkMs = integerBetween('chunkMs', o.chunkMs, 0, 60000);
  if (o.maxQueuedChunks !== undefined) {
    validated.maxQueuedChunks = integerBetween('maxQueuedChunks', o.maxQueuedChunks, 1, 1024);
  }
  const phonemeInput = optionalBoolean('phonemeInput', o.phonemeInput);
  if (phonemeInput !== undefined) validated.phonemeInput = phonemeInput;
  const urgent = optionalBoolean('urgent', o.urgent);
  if (urgent !== undefined) validated.urgent = urgent;
  return validated;
}

export const SAMPLE_RATE_RANGE = { min: 1000, max: 384000 } as const;

export function sampleRate(name: string, value: unknown): number {
  return integerBetween(name, value, SAMPLE_RATE_RANGE.min, SAMPLE_RATE_RANGE.max);
}

export function int16Array(name: string, value: unknown): Int16Array {
  if (!(value instanceof Int16Array)) throw invalid('an Int16Array', name, value);
  return value;
}

const TYPED_ARRAYS: Record<TensorType, { name: string; is: (v: unknown) => boolean }> = {
  float32: { name: 'Float32Array', is: (v) => v instanceof Float32Array },
  float64: { name: 'Float64Array', is: (v) => v instanceof Float64Array },
  int64: { name: 'BigInt64Array', is: (v) => v instanceof BigInt64Array },
  int32: { name: 'Int32Array', is: (v) => v instanceof Int32Array },
  int16: { name: 'Int16Array', is: (v) => v instanceof Int16Array },
  int8: { name: 'Int8Array', is: (v) => v instanceof Int8Array },
  uint8: { name: 'Uint8Array', is: (v) => v instanceof Uint8Array },
  bool: { name: 'Uint8Array', is: (v) => v instanceof Uint8Array },
};

export const TENSOR_TYPES = Object.keys(TYPED_ARRAYS) as TensorType[];

/** Checks feeds against the model's inputs: names, types, ranks, fixed dims, lengths. */
export function validateFeeds(feeds: unknown, inputs: readonly TensorDescription[]): Record<string, Tensor> {
  const f = object('feeds', feeds);
  for (const name of Object.keys(f)) {
    if (!inputs.some((i) => i.name === name)) {
      throw invalid(`one of ${inputs.map((i) => i.name).join(', ')}`, 'a feed name', name);
    }
  }
  for (const input of inputs) {
    const at = `feeds[${JSON.stringify(input.name)}]`;
    const feed = object(at, f[input.name]);
    const type = oneOf(`${at}.type`, feed.type, TENSOR_TYPES);
    if (type !== input.type && (TENSOR_TYPES as string[]).includes(input.type)) {
      throw invalid(`type ${input.type} (the model's)`, `${at}.type`, feed.type);
    }
    const dims = feed.dims;
    if (!Array.isArray(dims) || !dims.every((d) => Number.isInteger(d) && d >= 0)) {
      throw invalid('an array of non-negative integers', `${at}.dims`, dims);
    }
    if (dims.length !== input.dims.length || dims.some((d, i) => input.dims[i] !== -1 && input.dims[i] !== d)) {
      throw invalid(`dims matching [${input.dims.join(', ')}] (-1: any)`, `${at}.dims`, dims);
    }
    const expected = TYPED_ARRAYS[type];
    if (!expected.is(feed.data)) throw invalid(`a ${expected.name}`, `${at}.data`, feed.data);
    const count = (dims as number[]).reduce((a, b) => a * b, 1);
    const length = (feed.data as { length: number }).length;
    if (length !== count) {
      throw invalid(`${count} elements (dims [${dims.join(', ')}])`, `${at}.data`, feed.data, `${length} elements`);
    }
  }
  return f as Record<string, Tensor>;
}
