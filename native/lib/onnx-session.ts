import { callNative, captureCallSite, EngineError } from './errors.js';
import { loadBinding } from './load.js';
import type { Tensor, TensorDescription } from './tensor.js';
import { integerBetween, invalid, nonEmptyString, object, oneOf, validateFeeds } from './validate.js';

export interface NativeOnnxSessionOptions {
  executionProvider?: 'cpu' | 'cuda';
  intraOpThreads?: number;
  interOpThreads?: number;
}

export interface NativeOnnxSession {
  readonly inputNames: string[];
  readonly outputNames: string[];
  readonly inputs: TensorDescription[];
  readonly outputs: TensorDescription[];
  /** Custom metadata map stored in the ONNX file. */
  readonly metadata: Record<string, string>;
  /** Feeds' TypedArrays must not be written to until the promise settles. */
  run(feeds: Record<string, Tensor>, outputNames?: string[], background?: boolean): Promise<Record<string, Tensor>>;
  release(): void;
}

/** ONNX Runtime sessions of the addon (onnx_binding.cc). */
export interface OnnxBinding {
  OnnxSession: { create(model: string | Uint8Array, options?: NativeOnnxSessionOptions): Promise<NativeOnnxSession> };
  availableProviders(): string[];
}

const native = (): OnnxBinding => loadBinding<OnnxBinding>();

export interface OnnxSessionOptions {
  /** Default 'cpu'. 'cuda' rejects with SAWT_ENGINE_CUDA_UNAVAILABLE where CUDA cannot be used. */
  executionProvider?: 'cpu' | 'cuda';
  /** Threads inside one operator; 0 or absent: ONNX Runtime's default (all cores). */
  intraOpThreads?: number;
  interOpThreads?: number;
}

/**
 * An ONNX Runtime session. Loading and runs happen off the main thread; outputs
 * come back without a copy. Call release() when done (runs in flight finish).
 */
export class OnnxSession {
  readonly #native: NativeOnnxSession;
  #released = false;

  private constructor(native: NativeOnnxSession) {
    this.#native = native;
  }

  /** `model`: the ONNX file's path, or the model itself (bytes, e.g. a graph rewritten at load; copied). */
  static async create(model: string | Uint8Array, options: OnnxSessionOptions = {}): Promise<OnnxSession> {
    const o = object('options', options);
    const settings = {
      executionProvider: oneOf('executionProvider', o.executionProvider ?? 'cpu', ['cpu', 'cuda'] as const),
      ...(o.intraOpThreads !== undefined && { intraOpThreads: integerBetween('intraOpThreads', o.intraOpThreads, 0, 256) }),
      ...(o.interOpThreads !== undefined && { interOpThreads: integerBetween('interOpThreads', o.interOpThreads, 0, 256) }),
    };
    return new OnnxSession(await callNative(captureCallSite(), 'SAWT_ENGINE_ONNX', () =>
      native().OnnxSession.create(model instanceof Uint8Array && model.length > 0 ? model : nonEmptyString('path', model), settings)));
  }

  get inputNames(): readonly string[] { return this.#native.inputNames; }
  get outputNames(): readonly string[] { return this.#native.outputNames; }
  get inputs(): readonly TensorDescription[] { return this.#native.inputs; }
  get outputs(): readonly TensorDescription[] { return this.#native.outputs; }
  get metadata(): Readonly<Record<string, string>> { return this.#native.metadata; }

  /**
   * Runs the model. Feeds are checked against the model's inputs first; their
   * TypedArrays are used in place and must not change until the promise settles.
   * `background`: work nobody waits to hear (a long-form job's): it runs on a lower-priority thread
   * of its own and takes none of the run slots live requests use (native/onnx_runs.h).
   */
  async run(feeds: Record<string, Tensor>, outputNames?: string[], options: { background?: boolean } = {}): Promise<Record<string, Tensor>> {
    if (this.#released) throw new EngineError('SAWT_ENGINE_INVALID_ARGUMENT', 'This OnnxSession has been released');
    const checked = validateFeeds(feeds, this.inputs);
    if (outputNames !== undefined) {
      if (!Array.isArray(outputNames) || outputNames.length === 0) {
        throw invalid('a non-empty array of output names', 'outputNames', outputNames);
      }
      for (const name of outputNames) oneOf('outputNames[]', name, this.outputNames);
    }
    return callNative(captureCallSite(), 'SAWT_ENGINE_ONNX', () => this.#native.run(checked, outputNames, options.background === true));
  }

  release(): void {
    this.#released = true;
    this.#native.release();
  }
}

/** Execution providers compiled into the loaded ONNX Runtime (not necessarily usable). */
export function availableProviders(): string[] {
  return native().availableProviders();
}
