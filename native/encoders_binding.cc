#include "encoders_binding.h"

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "args.h"
#include "encoders.h"
#include "errors.h"
#include "promise_worker.h"

namespace sawt {
namespace {

constexpr int kMinRate = 1000, kMaxRate = 384000;

struct EncoderState {
  std::mutex mutex;
  std::unique_ptr<Encoder> encoder;
};

constexpr int kPush = 0, kDrain = 1, kEnd = 2;

class EncodeWorker : public PromiseWorker {
 public:
  EncodeWorker(Napi::Env env, std::shared_ptr<EncoderState> state, std::vector<int16_t> input, int mode)
      : PromiseWorker(env, "sawt:encode"), state_(std::move(state)), input_(std::move(input)), mode_(mode) {}

  void Execute() override {
    try {
      std::lock_guard<std::mutex> lock(state_->mutex);
      if (!state_->encoder) throw std::logic_error("encoder closed");
      if (!input_.empty()) state_->encoder->Push(input_.data(), input_.size(), out_);
      if (mode_ == kDrain) state_->encoder->Drain(out_);
      if (mode_ == kEnd) {
        state_->encoder->End(out_);
        state_->encoder.reset();  // frees the codec's state now
      }
    } catch (const std::exception& e) {
      SetError(e.what());
    }
  }
  void OnOK() override { deferred_.Resolve(Napi::Buffer<uint8_t>::Copy(Env(), out_.data(), out_.size())); }

 private:
  std::shared_ptr<EncoderState> state_;
  std::vector<int16_t> input_;
  int mode_;
  std::vector<uint8_t> out_;
};

class EncoderObject : public Napi::ObjectWrap<EncoderObject> {
 public:
  explicit EncoderObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<EncoderObject>(info) {
    Napi::Env env = info.Env();
    const std::string codec = args::String(env, info[0], "codec", true);
    const int inRate = static_cast<int>(args::Integer(env, info[1], "inRate", kMinRate, kMaxRate));
    const int outRate = static_cast<int>(args::Integer(env, info[2], "outRate", kMinRate, kMaxRate));
    const int bitrate = static_cast<int>(args::Integer(env, info[3], "bitrate", 0, 512000));
    state_ = std::make_shared<EncoderState>();
    try {
      state_->encoder = std::make_unique<Encoder>(codec, inRate, outRate, bitrate);
    } catch (const std::exception& e) {
      throw MakeError(env, ErrorCode::kInvalidArgument, e.what());
    }
  }

  Napi::Value Push(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::Int16Array samples = args::Int16Array(env, info[0], "samples");
    std::vector<int16_t> input(samples.Data(), samples.Data() + samples.ElementLength());
    return (new EncodeWorker(env, state_, std::move(input), kPush))->Start();
  }

  Napi::Value Drain(const Napi::CallbackInfo& info) { return (new EncodeWorker(info.Env(), state_, {}, kDrain))->Start(); }
  Napi::Value End(const Napi::CallbackInfo& info) { return (new EncodeWorker(info.Env(), state_, {}, kEnd))->Start(); }

 private:
  std::shared_ptr<EncoderState> state_;
};

}  // namespace

Napi::Function DefineEncoderClass(Napi::Env env) {
  return EncoderObject::DefineClass(env, "AudioEncoder",
                                    {EncoderObject::InstanceMethod<&EncoderObject::Push>("push"), EncoderObject::InstanceMethod<&EncoderObject::Drain>("drain"),
                                     EncoderObject::InstanceMethod<&EncoderObject::End>("end")});
}

}  // namespace sawt
