// Voice analysis and conversion bindings (analyzeVoice, convertVoice, matchSpectra).
#pragma once

#include <napi.h>

namespace sawt {

void RegisterVoiceFunctions(Napi::Env env, Napi::Object exports);

}  // namespace sawt
