// Error codes shared by every binding of the addon. Every error that reaches
// JavaScript is an `Error` with a string `code` property from this list; the
// TypeScript wrapper (native/lib/errors.ts) mirrors it.
#pragma once

#include <napi.h>

#include <stdexcept>
#include <string>

namespace sawt {

enum class ErrorCode {
  kInvalidArgument,  // SAWT_ENGINE_INVALID_ARGUMENT
  kEspeak,  // SAWT_ENGINE_ESPEAK
  kOnnx,  // SAWT_ENGINE_ONNX
  kCudaUnavailable,  // SAWT_ENGINE_CUDA_UNAVAILABLE
  kCancelled,  // SAWT_ENGINE_CANCELLED
  kHts,  // SAWT_ENGINE_HTS
};

const char* ErrorCodeName(ErrorCode code);

// A failure raised on any thread; converted to a JS Error on the main thread.
class EngineFailure : public std::runtime_error {
 public:
  EngineFailure(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

// Main thread only.
Napi::Error MakeError(Napi::Env env, ErrorCode code, const std::string& message);
Napi::Error MakeError(Napi::Env env, const EngineFailure& failure);

// Throws (as a C++ exception that node-addon-api turns into a JS throw) a
// SAWT_ENGINE_INVALID_ARGUMENT TypeError. Main thread only.
[[noreturn]] void ThrowInvalidArgument(Napi::Env env, const std::string& message);

}  // namespace sawt
