// JS binding of Piper voices (piper_session.h) and of espeak's phonemes as Piper
// reads them:
//   PiperSession.create(path, { executionProvider?, intraOpThreads? }) -> Promise<PiperSession>
//     loads on libuv's pool; rejects (SAWT_ENGINE_ONNX) when the inputs are not Piper's.
//   session.inputNames, session.hasSid
//   session.synthesize(ids: BigInt64Array, { noiseScale, lengthScale, noiseW, sid, inRate,
//       outRate, volume, silenceMs, tag }) -> Promise<{ pcm: Int16Array, samples }>
//     one sentence on the environment's ONNX pool (onnx_runs.h), not libuv's; ids are
//     used in place (do not write to them until it settles); pcm is an external
//     buffer over the native result (no copy); samples: the model's output count.
//   session.cancel(tag): terminates the runs with this tag, queued or running
//     (their promises reject with SAWT_ENGINE_CANCELLED).
//   session.stats() -> { started, finished, terminated, skipped }
//   session.release()
//   piperClauses(text, voice) -> Promise<[phonemes, consumedText][]>
//   phonemeInputIpa(text, voice) -> Promise<string>
#pragma once

#include <napi.h>

namespace sawt {

// The PiperSession class (AddonState keeps it to construct sessions).
Napi::Function DefinePiperSessionClass(Napi::Env env);
// piperClauses and phonemeInputIpa.
void RegisterPiperFunctions(Napi::Env env, Napi::Object exports);

}  // namespace sawt
