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

template <typename Engine>
class ResamplerObject : public Napi::ObjectWrap<ResamplerObject<Engine>> {
 public:
  explicit ResamplerObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<ResamplerObject<Engine>>(info) {
    Napi::Env env = info.Env();
    const int inRate = static_cast<int>(args::Integer(env, info[0], "inRate", kMinRate, kMaxRate));
    const int outRate = static_cast<int>(args::Integer(env, info[1], "outRate", kMinRate, kMaxRate));
    resampler_ = std::make_unique<Engine>(inRate, outRate);
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

  std::unique_ptr<Engine> resampler_;
  std::vector<int16_t> scratch_;
};

template <typename Engine>
Napi::Function DefineClass(Napi::Env env, const char* name) {
  using Object = ResamplerObject<Engine>;
  return Object::DefineClass(env, name,
                             {Object::template InstanceMethod<&Object::Process>("process"), Object::template InstanceMethod<&Object::Flush>("flush")});
}

}  // namespace

Napi::Function DefineResamplerClass(Napi::Env env) { return DefineClass<Resampler>(env, "Resampler"); }

}  // namespace sawt
