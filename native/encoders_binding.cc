// JS class `AudioEncoder` over sawt::Encoder (encoders.h): new AudioEncoder(codec, inRate, outRate,
// bitrate); push(Int16Array), drain() and end() return promises of Buffers, encoded on libuv's pool
// (the input is copied). Calls of one encoder run one after the other (a mutex; the JS wrapper also chains them).
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "args.h"
#include "bindings.h"
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

// One call on libuv's pool: pushes `input`, then drains or ends the stream.
Napi::Value Encode(Napi::Env env, std::shared_ptr<EncoderState> state, std::vector<int16_t> input, int mode) {
  auto work = [state = std::move(state), input = std::move(input), mode] {
    std::vector<uint8_t> out;
    std::lock_guard<std::mutex> lock(state->mutex);
    if (!state->encoder) throw std::logic_error("encoder closed");
    if (!input.empty()) state->encoder->Push(input.data(), input.size(), out);
    if (mode == kDrain) state->encoder->Drain(out);
    if (mode == kEnd) {
      state->encoder->End(out);
      state->encoder.reset();  // frees the codec's state now
    }
    return out;
  };
  return RunTask(env, "sawt:encode", std::nullopt, std::move(work),
                 [](Napi::Env env, std::vector<uint8_t>& out) { return Napi::Buffer<uint8_t>::Copy(env, out.data(), out.size()); });
}

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
    return Encode(env, state_, std::move(input), kPush);
  }

  Napi::Value Drain(const Napi::CallbackInfo& info) { return Encode(info.Env(), state_, {}, kDrain); }
  Napi::Value End(const Napi::CallbackInfo& info) { return Encode(info.Env(), state_, {}, kEnd); }

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
