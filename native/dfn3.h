// DeepFilterNet3 speech enhancement (48 kHz) through ONNX Runtime, with its
// STFT / ERB / deep-filter pipeline in C++ (after libDF of the reference
// implementation): Vorbis window, FFT 960, hop 480, 32 ERB bands, 96 deep-filter
// bins of order 5 (lookahead 2), features shifted by conv_lookahead 2.
//
// The non-streaming models (enc, erb_dec, df_dec) run on windows of frames:
// each window emits kBlock frames, preceded by up to kContext frames already
// emitted (recurrent warm-up) and followed by kRight frames of lookahead, so
// memory is bounded whatever the duration. Output lines up with the input
// (the STFT's 480-sample delay is hidden) and is exactly as long after flush.
//
// JS (see plugins/denoise/src/dfn3.ts):
//   dfn3Load({ enc, erbDec, dfDec } file paths, { intraOpThreads?, blockFrames?, contextFrames? }) -> Promise<model>
//   dfn3Open(model) -> stream          (one per channel; shares the model's sessions)
//   dfn3Process(stream, Float32Array, flush) -> Promise<Float32Array>
//     work on libuv's pool; one call per stream at a time.
#pragma once

#include <napi.h>

namespace sawt {

void RegisterDfn3Functions(Napi::Env env, Napi::Object exports);

}  // namespace sawt
