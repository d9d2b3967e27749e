/** Errors of the native engine: one class, a stable `code` per cause. */

export const ENGINE_ERROR_CODES = [
  /** An option or argument failed validation (raised before any native work). */
  'SAWT_ENGINE_INVALID_ARGUMENT',
  /** espeak-ng failed: unknown voice, missing espeak-ng-data, synthesis error. */
  'SAWT_ENGINE_ESPEAK',
  /** ONNX Runtime failed to load a model or to run it. */
  'SAWT_ENGINE_ONNX',
  /** executionProvider 'cuda' was asked for where CUDA cannot be used. */
  'SAWT_ENGINE_CUDA_UNAVAILABLE',
  /** The synthesis was cancelled (stream destroyed or cancel()). */
  'SAWT_ENGINE_CANCELLED',
  /** The HTS engine failed (parameter generation or vocoding). */
  'SAWT_ENGINE_HTS',
  /** native/build/Release/sawt_native.node was not found (not built). */
  'SAWT_ENGINE_ADDON_MISSING',
] as const;

export type EngineErrorCode = (typeof ENGINE_ERROR_CODES)[number];

export class EngineError extends Error {
  readonly code: EngineErrorCode;

  constructor(code: EngineErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EngineError';
    this.code = code;
  }
}

export function isEngineError(error: unknown, code?: EngineErrorCode): error is EngineError {
  return error instanceof EngineError && (code === undefined || error.code === code);
}

/** Where an addon call was made from. The stack text is made only when an error needs it: formatting costs ~0.1 ms per call. */
export type CallSite = { readonly stack?: string };

export function captureCallSite(): CallSite {
  const holder: { stack?: string } = {};
  Error.captureStackTrace(holder, captureCallSite);
  return holder;
}

/** The call site's frames as stack text, without the "Error" line and the frame of the wrapper that asked. */
function callSiteText(callSite: CallSite | string): string {
  return typeof callSite === 'string' ? callSite : (callSite.stack ?? '').split('\n').slice(2).join('\n');
}

/** The addon's error as an EngineError with its message and code (else `fallback`) and the JS call site's stack. */
export function fromNative(error: unknown, callSite: CallSite | string, fallback: EngineErrorCode): EngineError {
  const native = error as { code?: unknown; message?: unknown } | null;
  const code = ENGINE_ERROR_CODES.find((c) => c === native?.code) ?? fallback;
  const message = typeof native?.message === 'string' ? native.message : String(error);
  const wrapped = new EngineError(code, message, { cause: error });
  wrapped.stack = `${wrapped.name} [${code}]: ${message}\n${callSiteText(callSite)}`;
  return wrapped;
}

/** Runs `call` (an addon call) and turns its failure, thrown or rejected, into an EngineError from `callSite` (see fromNative). */
export async function callNative<T>(callSite: CallSite | string, fallback: EngineErrorCode, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw fromNative(error, callSite, fallback);
  }
}

export function callNativeSync<T>(callSite: CallSite | string, fallback: EngineErrorCode, call: () => T): T {
  try {
    return call();
  } catch (error) {
    throw fromNative(error, callSite, fallback);
  }
}
