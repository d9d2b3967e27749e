// JS class `Resampler` over sawt::Resampler (see resampler.h). Each JS object
// owns its C++ resampler; used on the JS thread that created it only.
// process() and flush() return new Int16Arrays (JS-owned copies: the results
// are small and the C++ side reuses its buffers).
#pragma once

#include <napi.h>

namespace sawt {

Napi::Function DefineResamplerClass(Napi::Env env);

}  // namespace sawt
