#include "resampler_binding.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "errors.h"
#include "resampler.h"

namespace sawt {
namespace {

constexpr int kMinRate = 1000, kMaxRate = 384000;

class ResamplerObject : public Napi::ObjectWrap<ResamplerObject> {
 public:
  explicit ResamplerObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ResamplerObject>(info) {
    Napi::Env env = info.Env();
    const int inRate = Rate(env, info[0], "inRate");
    const int outRate = Rate(env, info[1], "outRate");
    resampler_ = std::make_unique<Resampler>(inRate, outRate);
  }

  Napi::Value Process(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!info[0].IsTypedArray() ||
        info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int16_array) {
      ThrowInvalidArgument(env, "Expected an Int16Array for samples");
    }
    Napi::Int16Array samples = info[0].As<Napi::Int16Array>();
    scratch_.clear();
    resampler_->Process(samples.Data(), samples.ElementLength(), scratch_);
    return ToJs(env);
  }

  Napi::Value Flush(const Napi::CallbackInfo& info) {
    scratch_.clear();
    resampler_->Flush(scratch_);
    return ToJs(info.Env());
  }

 private:
  static int Rate(Napi::Env env, const Napi::Value& value, const char* name) {
    const double rate = value.IsNumber() ? value.As<Napi::Number>().DoubleValue() : -1;
    if (!(rate >= kMinRate && rate <= kMaxRate) || rate != static_cast<int>(rate)) {
      ThrowInvalidArgument(env, std::string("Expected an integer between ") + std::to_string(kMinRate) +
                                    " and " + std::to_string(kMaxRate) + " for " + name);
    }
    return static_cast<int>(rate);
  }

  Napi::Value ToJs(Napi::Env env) {
    Napi::Int16Array out = Napi::Int16Array::New(env, scratch_.size());
    if (!scratch_.empty()) std::memcpy(out.Data(), scratch_.data(), scratch_.size() * sizeof(int16_t));
    return out;
  }

  std::unique_ptr<Resampler> resampler_;
  std::vector<int16_t> scratch_;
};

}  // namespace

Napi::Function DefineResamplerClass(Napi::Env env) {
  return ResamplerObject::DefineClass(env, "Resampler",
                                      {ResamplerObject::InstanceMethod<&ResamplerObject::Process>("process"),
                                       ResamplerObject::InstanceMethod<&ResamplerObject::Flush>("flush")});
}

}  // namespace sawt
