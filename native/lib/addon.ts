/**
 * The whole raw interface of the native addon, for tests and diagnostics: each engine's binding,
 * typed in that engine's file. Production code uses the validating wrappers of those files.
 *
 * Threads and memory, as the C++ side implements them (native/priority_pool.h has every pool):
 * - espeak-ng runs as one or more private instances (espeakInstances), each behind its own lock;
 *   synthesis takes turns per segment on the espeak pool (first segments first), phonemize on a
 *   pool of its own (urgent calls first), HTS on a pool per voice file, ONNX runs (sessions, Piper,
 *   DFN3) on the environment's ONNX pool; encoders, voice analysis and model loads on libuv's pool.
 * - Audio chunks and ONNX outputs are external buffers over native memory, freed by their
 *   finalizers when JS collects them (no copy).
 */
import type { Dfn3Binding } from './dfn3.js';
import type { EncoderBinding } from './encoder.js';
import type { EspeakBinding } from './espeak.js';
import type { HtsBinding } from './hts.js';
import { loadBinding } from './load.js';
import type { OnnxBinding } from './onnx-session.js';
import type { PiperBinding } from './piper.js';
import type { ResamplerBinding } from './resampler.js';
import type { StreamBinding } from './synthesis-stream.js';
import type { VoiceBinding } from './voice.js';

/** Test-only (test/native/priority-pool.test.js): the order a PriorityPool of its own ran the named tasks in. */
export interface PoolProbeBinding {
  poolOrder(lanes: 'shared' | 'split', tasks: Array<[name: string, urgent: boolean]>): Promise<string[]>;
}

export type NativeAddon = EspeakBinding & StreamBinding & HtsBinding & PiperBinding & OnnxBinding & ResamplerBinding
  & EncoderBinding & VoiceBinding & Dfn3Binding & PoolProbeBinding;

/** The raw addon (loaded on first use). */
export function nativeAddon(): NativeAddon {
  return loadBinding<NativeAddon>();
}
