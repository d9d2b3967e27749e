// JS class `Resampler` over sawt::Resampler (resampler.h), used on the JS thread that made it.
// process() and flush() return new Int16Arrays (copies: the results are small and the C++ side reuses its buffers).
#include <memory>
#include <string>
#include <vector>

#include "args.h"
#include "bindings.h"
#include "errors.h"
#include "promise_worker.h"
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
    Napi::Int16Array samples = args::Int16Array(info.Env(), info[0], "samples");
    scratch_.clear();
    resampler_->Process(samples.Data(), samples.ElementLength(), scratch_);
    return CopyToJs(info.Env(), scratch_);
  }

  Napi::Value Flush(const Napi::CallbackInfo& info) {
    scratch_.clear();
    resampler_->Flush(scratch_);
    return CopyToJs(info.Env(), scratch_);
  }

 private:
  std::unique_ptr<Resampler> resampler_;
  std::vector<int16_t> scratch_;
};

}  // namespace

Napi::Function DefineResamplerClass(Napi::Env env) {
  using R = ResamplerObject;
  return R::DefineClass(env, "Resampler", {R::InstanceMethod<&R::Process>("process"), R::InstanceMethod<&R::Flush>("flush")});
}

}  // namespace sawt
