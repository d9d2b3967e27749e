// Node-API side of espeak-ng (espeak_engine.h, synthesis.h): reads the JS arguments (their values
// checked in TypeScript first, native/lib/validate.ts) and hands the engine plain C++ values.
#pragma once

#include <napi.h>

namespace sawt {

// JS: phonemize(text, voice, mode, urgent) -> Promise<string>, on the phonemize pool
//     listVoices() -> [{ name, languages, identifier }]
//     espeakInstances(count?) -> number
//     createSynthesis(options, onEvent) -> { pause(), resume(), cancel() }
void RegisterEspeakFunctions(Napi::Env env, Napi::Object exports);

}  // namespace sawt
