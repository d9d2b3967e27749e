// JS class `AudioEncoder` over sawt::Encoder (see encoders.h): new AudioEncoder(codec, inRate,
// outRate, bitrate); push(Int16Array) and end() return promises of Buffers. The encoding runs
// on libuv's pool, never on the event loop; the input is copied, so the caller may reuse it.
// drain() emits all pushed so far, the stream continuing.
// Calls of one encoder run one after the other (a mutex; the JS wrapper also chains them).
#pragma once

#include <napi.h>

namespace sawt {

Napi::Function DefineEncoderClass(Napi::Env env);

}  // namespace sawt
