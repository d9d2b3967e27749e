// Node-API side of hts_synthesis.h.
#pragma once

#include <napi.h>

namespace sawt {

// JS: createHtsSynthesis(options, onEvent) -> { pause(), resume(), cancel() }
//     htsParameters(options) -> Promise<[{ frames, lf0, mgc, lpf, ... }]>
void RegisterHtsFunctions(Napi::Env env, Napi::Object exports);

}  // namespace sawt
