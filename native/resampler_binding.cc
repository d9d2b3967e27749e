#include "resampler_binding.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "errors.h"
#include "resampler.h"

namespace sawt {
namespace {

constexpr int kMinRate = 1000, kMaxRate = 384000;

class ResamplerObject : public Napi::ObjectWrap<ResamplerObject> {
 public:
  explicit ResamplerObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ResamplerObject>(info) {
    Napi::Env env = info.Env();
    const int inRate = static_cast<int>(args::Integer(env, info[0], "inRate", kMinRate, kMaxRate));
    const int outRate = static_cast<int>(args::Integer(env, info[1], "outRate", kMinRate, kMaxRate));
    resampler_ = std::make_unique<Resampler>(inRate, outRate);
  }

  Napi::Value Process(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::Int16Array samples = args::Int16Array(env, info[0], "samples");
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
