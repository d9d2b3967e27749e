/**
 * Validation of everything handed to the native addon, once (its C++ readers check only types and
 * the bounds that protect memory), with sharp-style messages ("Expected <what> for <name> but
 * received <value>"). Each check throws EngineError SAWT_ENGINE_INVALID_ARGUMENT before any native call.
 */
import { inspect } from 'node:util';
import { EngineError } from './errors.js';
import type { Tensor, TensorDescription, TensorType } from './tensor.js';

/**
 * The speaking rates (words per minute) espeak synthesis accepts: those the engine speaks at
 * (espeak::kMinRate/kMaxRate in native/espeak_engine.h, exported as espeakRateRange; a test keeps the two equal).
 */
export const ESPEAK_RATE_RANGE = { min: 80, max: 450 } as const;

/** Output rates offered to clients. */
export const SUPPORTED_SAMPLE_RATES = [8000, 16000, 22050, 24000] as const;
export type SupportedSampleRate = (typeof SUPPORTED_SAMPLE_RATES)[number];

/** What a value that failed a check was, as the addon's HTS and Piper readers wrote it ('a string', 'an array', 'a Float32Array of 12', null, 3). */
function kindOf(value: unknown): string {
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return 'a string';
  if (Array.isArray(value)) return 'an array';
  if (ArrayBuffer.isView(value)) return `a ${value.constructor.name} of ${(value as unknown as { length: number }).length}`;
  return typeof value === 'function' ? 'a function' : 'an object';
}

function show(value: unknown): string {
  if (value === undefined || value === null || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  const text = inspect(value, { depth: 1, maxArrayLength: 5, maxStringLength: 40, breakLength: Infinity });
  const kind = Array.isArray(value) ? 'array' : ArrayBuffer.isView(value) ? value.constructor.name : typeof value;
  return `${text} of type ${kind}`;
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

/** espeak synthesis options (synthesizeStream). */
export interface SynthesisOptions {
  /** Normalized text pieces, usually sentences; synthesized in order. */
  segments: string[];
  /** espeak-ng voice spec, e.g. 'ar', 'ar+m3'. */
  voice: string;
  /** Words per minute, within ESPEAK_RATE_RANGE. */
  rate: number;
  /** 0..100. */
  pitch: number;
  /** 0..100. */
  range: number;
  /** Output rate, one of SUPPORTED_SAMPLE_RATES (default 24000; espeak's 22050 Hz is resampled). */
  sampleRate?: number;
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

/** The options as the addon reads them (createSynthesis), once checked: the rate filled in. */
export type NativeSynthesisOptions = SynthesisOptions & { sampleRate: number };

/** Checks every synthesis option; fills defaults (sampleRate 24000). */
export function validateSynthesisOptions(options: unknown): NativeSynthesisOptions {
  const o = object('options', options);
  const given = (name: string) => o[name] !== undefined;
  return {
    segments: nonEmptyStringArray('segments', o.segments),
    voice: nonEmptyString('voice', o.voice),
    rate: integerBetween('rate', o.rate, ESPEAK_RATE_RANGE.min, ESPEAK_RATE_RANGE.max),
    pitch: integerBetween('pitch', o.pitch, 0, 100),
    range: integerBetween('range', o.range, 0, 100),
    sampleRate: oneOf('sampleRate', o.sampleRate ?? 24000, SUPPORTED_SAMPLE_RATES),
    ...(given('chunkMs') && { chunkMs: integerBetween('chunkMs', o.chunkMs, 0, 60000) }),
    ...(given('maxQueuedChunks') && { maxQueuedChunks: integerBetween('maxQueuedChunks', o.maxQueuedChunks, 1, 1024) }),
    ...(given('phonemeInput') && { phonemeInput: optionalBoolean('phonemeInput', o.phonemeInput) }),
    ...(given('urgent') && { urgent: optionalBoolean('urgent', o.urgent) }),
  };
}

export function sampleRate(name: string, value: unknown): number {
  return integerBetween(name, value, 1000, 384000);
}

export function int16Array(name: string, value: unknown): Int16Array {
  if (!(value instanceof Int16Array)) throw invalid('an Int16Array', name, value);
  return value;
}

const TYPED_ARRAYS: Record<TensorType, abstract new (...args: never[]) => { length: number }> = {
  float32: Float32Array, float64: Float64Array, int64: BigInt64Array, int32: Int32Array, int16: Int16Array, int8: Int8Array, uint8: Uint8Array, bool: Uint8Array,
};
const TENSOR_TYPES = Object.keys(TYPED_ARRAYS) as TensorType[];

/** Checks feeds against the model's inputs: names, types, ranks, fixed dims, lengths. */
export function validateFeeds(feeds: unknown, inputs: readonly TensorDescription[]): Record<string, Tensor> {
  const f = object('feeds', feeds);
  for (const name of Object.keys(f)) {
    if (!inputs.some((i) => i.name === name)) throw invalid(`one of ${inputs.map((i) => i.name).join(', ')}`, 'a feed name', name);
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
    if (!(feed.data instanceof expected)) throw invalid(`a ${expected.name}`, `${at}.data`, feed.data);
    const count = (dims as number[]).reduce((a, b) => a * b, 1);
    if (feed.data.length !== count) throw invalid(`${count} elements (dims [${dims.join(', ')}])`, `${at}.data`, feed.data, `${feed.data.length} elements`);
  }
  return f as Record<string, Tensor>;
}

const fail = (message: string): EngineError => new EngineError('SAWT_ENGINE_INVALID_ARGUMENT', message);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v);

const HTS_STREAMS = ['mgc', 'lf0', 'lpf'] as const;
/** Bounds that keep frames × dim far from overflow (the addon checks them too: they guard its copies). */
const HTS_MAX_FRAMES = 2 ** 30, HTS_MAX_DIM = 4096, HTS_MAX_TEXT = 2 ** 30;

function htsStreams(value: unknown, index: number): void {
  const at = `parameters[${index}]`;
  if (!isObject(value)) throw fail(`Expected an object of parameter streams for ${at} but received ${kindOf(value)}`);
  const frames = integerBetween(`${at}.frames`, value.frames, 1, HTS_MAX_FRAMES);
  const dims = value.dims;
  if (typeof dims !== 'object' || dims === null || Array.isArray(dims)) throw fail(`Expected an object {mgc, lf0, lpf} for ${at}.dims but received ${kindOf(dims)}`);
  for (const stream of HTS_STREAMS) {
    const data = value[stream], dim = (dims as Record<string, unknown>)[stream];
    if (stream === 'lpf' && data === undefined && dim === undefined) break;
    const width = integerBetween(`${at}.dims.${stream}`, dim, 1, HTS_MAX_DIM);
    const name = `${at}.${stream}`;
    if (!(data instanceof Float32Array || data instanceof Float64Array)) throw fail(`Expected a Float32Array or Float64Array for ${name} but received ${kindOf(data)}`);
    if (data.length !== frames * width) {
      throw fail(`Expected ${frames * width} values (frames ${frames} × dim ${width}) for ${name} but received ${data.length}`);
    }
    // lf0 NaN marks an unvoiced frame; any other non-finite value would reach the MLSA filter.
    const bad = data.findIndex((x) => !Number.isFinite(x) && !(stream === 'lf0' && Number.isNaN(x)));
    if (bad >= 0) {
      const x = data[bad]!;
      throw fail(`Expected finite values${stream === 'lf0' ? ' (or NaN: unvoiced)' : ''} for ${name} but received ${Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity'} at index ${bad}`);
    }
  }
}

function perUtterance(name: string, what: string, value: unknown, labels: unknown[][]): unknown[][] {
  if (!Array.isArray(value) || value.length !== labels.length) {
    throw fail(`Expected an array of ${labels.length} ${what} (one per utterance) for ${name} but received ${Array.isArray(value) ? `an array of ${value.length}` : kindOf(value)}`);
  }
  return value as unknown[][];
}

function htsWords(value: unknown, labels: unknown[][]): void {
  perUtterance('words', 'word lists', value, labels).forEach((list, i) => {
    const at = `words[${i}]`;
    if (!Array.isArray(list)) throw fail(`Expected an array of {label, textOffset, length} for ${at} but received ${kindOf(list)}`);
    let next = 0;
    list.forEach((item: unknown, j) => {
      const wat = `${at}[${j}]`;
      if (!isObject(item)) throw fail(`Expected an object {label, textOffset, length} for ${wat} but received ${kindOf(item)}`);
      // The range says both: inside the utterance's labels, and after the previous word's first phone.
      if (next >= labels[i]!.length) {
        throw fail(`Expected at most ${j} words for ${at} (words[${i}][${j - 1}] starts at the last of the ${labels[i]!.length} labels of utterances[${i}]) but received ${list.length}`);
      }
      next = integerBetween(`${wat}.label`, item.label, next, labels[i]!.length - 1) + 1;
      integerBetween(`${wat}.textOffset`, item.textOffset, 0, HTS_MAX_TEXT);
      integerBetween(`${wat}.length`, item.length, 0, HTS_MAX_TEXT);
    });
  });
}

/**
 * Checks HTS options (createHtsSynthesis when `streaming`, else htsParameters): the voice and
 * controls, exactly one source (labels or given streams) with its words and voiced closures, and
 * the output settings. The messages are the ones the addon's readers gave.
 */
export function validateHtsOptions(options: unknown, streaming: boolean): void {
  if (!isObject(options)) throw fail(`Expected an object for options but received ${kindOf(options)}`);
  const o = options;
  nonEmptyString('voicePath', o.voicePath);
  // With given parameters, speed, halfTone, f0Spread and the GV weights have nothing to act on; they
  // are still checked, so that a bad value is not silently accepted.
  const controls: Array<[string, number, number]> = [['speed', 0.25, 4], ['halfTone', -24, 24], ['f0Spread', 0, 4], ['alpha', 0, 0.95], ['gvWeightLf0', 0, 4],
    ['gvWeightMgc', 0, 4], ['gainDb', -40, 12], ['postfilter', 0, 0.8], ['highpassHz', 0, 500], ['threads', 1, 64]];
  if (streaming) controls.push(['sampleRate', 8000, 48000], ['maxQueuedChunks', 1, 1024], ['chunkMs', 0, 60000], ['firstWindowFrames', 10, 100000], ['windowFrames', 10, 100000]);
  for (const [name, min, max] of controls) if (o[name] !== undefined) numberBetween(name, o[name], min, max);
  // mgcOffset: at most 256 numbers, each within ±10 (a mel-cepstral EQ of tens of dB at most).
  if (o.mgcOffset !== undefined) {
    if (!Array.isArray(o.mgcOffset) || o.mgcOffset.length > 256) {
      throw fail(`Expected an array of at most 256 numbers for mgcOffset but received ${Array.isArray(o.mgcOffset) ? `an array of ${o.mgcOffset.length}` : kindOf(o.mgcOffset)}`);
    }
    o.mgcOffset.forEach((x: unknown, i) => numberBetween(`mgcOffset[${i}]`, x, -10, 10));
  }
  for (const k of streaming ? ['urgent', 'background'] : []) if (o[k] !== undefined && typeof o[k] !== 'boolean') throw fail(`Expected a boolean for ${k} but received ${kindOf(o[k])}`);
  if (streaming && (o.utterances === undefined) === (o.parameters === undefined)) {
    throw fail(`Expected exactly one of utterances (labels) and parameters (streams) for options but received ${o.utterances === undefined ? 'neither' : 'both'}`);
  }
  if (streaming && o.parameters !== undefined) {
    if (!Array.isArray(o.parameters) || o.parameters.length === 0) {
      throw fail(`Expected a non-empty array of parameter streams (as htsParameters returns) for parameters but received ${kindOf(o.parameters)}`);
    }
    o.parameters.forEach((p: unknown, i) => htsStreams(p, i));
    if (o.words !== undefined) throw fail(`Expected no words with parameters (word timings come from the labels' durations) for options.words but received ${kindOf(o.words)}`);
    if (o.voicedClosures !== undefined) throw fail(`Expected no voicedClosures with parameters (edit the given lf0 instead) for options.voicedClosures but received ${kindOf(o.voicedClosures)}`);
    return;
  }
  if (!Array.isArray(o.utterances) || o.utterances.length === 0) throw fail('Expected a non-empty array of label arrays for utterances');
  const labels = o.utterances as unknown[][];
  labels.forEach((u, i) => {
    if (!Array.isArray(u) || u.length === 0) throw fail(`Expected a non-empty array of strings for utterances[${i}]`);
    u.forEach((l, j) => { if (typeof l !== 'string') throw fail(`Expected a string for utterances[${i}][${j}]`); });
  });
  if (streaming && o.words !== undefined) htsWords(o.words, labels);
  if (o.voicedClosures !== undefined) {
    perUtterance('voicedClosures', 'label lists', o.voicedClosures, labels).forEach((list, i) => {
      const at = `voicedClosures[${i}]`;
      if (!Array.isArray(list)) throw fail(`Expected an array of label indices for ${at} but received ${kindOf(list)}`);
      list.forEach((x: unknown, j) => integerBetween(`${at}[${j}]`, x, 0, labels[i]!.length - 1));
    });
  }
}

/** Checks one Piper run (PiperSession.synthesize): the ids and every option (the addon's messages). */
export function validatePiperRun(ids: unknown, options: unknown): void {
  if (!(ids instanceof BigInt64Array) || ids.length === 0) throw fail('Expected a non-empty BigInt64Array of phoneme ids');
  if (!isObject(options)) throw fail('Expected an object for options');
  const o = options;
  for (const [name, min, max, integer] of [['noiseScale', 0, 10], ['lengthScale', 0.05, 20], ['noiseW', 0, 10], ['volume', 0, 1], ['tag', 0, 4294967295],
    ['sid', 0, 2 ** 30, true], ['inRate', 8000, 192000, true], ['outRate', 8000, 192000, true], ['silenceMs', 0, 10000, true]] as const) {
    if (o[name] !== undefined) (integer ? integerBetween : numberBetween)(name, o[name], min, max);
  }
}
