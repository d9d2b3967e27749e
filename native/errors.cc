#include "errors.h"

namespace sawt {

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "SAWT_ENGINE_INVALID_ARGUMENT";
    case ErrorCode::kEspeak: return "SAWT_ENGINE_ESPEAK";
    case ErrorCode::kOnnx: return "SAWT_ENGINE_ONNX";
    case ErrorCode::kCudaUnavailable: return "SAWT_ENGINE_CUDA_UNAVAILABLE";
    case ErrorCode::kCancelled: return "SAWT_ENGINE_CANCELLED";
    case ErrorCode::kHts: return "SAWT_ENGINE_HTS";
  }
  return "SAWT_ENGINE_UNKNOWN";
}

Napi::Error MakeError(Napi::Env env, ErrorCode code, const std::string& message) {
  Napi::Error error = code == ErrorCode::kInvalidArgument
                          ? Napi::TypeError::New(env, message)
                          : Napi::Error::New(env, message);
  error.Set("code", Napi::String::New(env, ErrorCodeName(code)));
  return error;
}

Napi::Error MakeError(Napi::Env env, const EngineFailure& failure) {
  return MakeError(env, failure.code(), failure.what());
}

void ThrowInvalidArgument(Napi::Env env, const std::string& message) {
  throw MakeError(env, ErrorCode::kInvalidArgument, message);
}

}  // namespace sawt
