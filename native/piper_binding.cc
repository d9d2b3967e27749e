// JS binding of Piper voices (piper_session.h) and of espeak's phonemes as Piper reads them:
//   PiperSession.create(path, { executionProvider?, intraOpThreads? }) -> Promise<PiperSession>
//     (libuv's pool; rejects SAWT_ENGINE_ONNX when the inputs are not Piper's); inputNames, hasSid
//   session.synthesize(ids: BigInt64Array, { noiseScale, lengthScale, noiseW, sid, inRate, outRate,
//       volume, silenceMs, tag }) -> Promise<{ pcm: Int16Array, samples }>: one sentence on the ONNX
//     pool (onnx_runs.h); ids used in place (not written until it settles); pcm external (no copy)
//   session.cancel(tag): terminates its runs, queued or running (SAWT_ENGINE_CANCELLED)
//   session.stats() -> { started, finished, terminated, skipped }; session.release()
//   piperClauses(text, voice) -> Promise<[phonemes, consumedText][]>; phonemeInputIpa(text, voice) -> Promise<string>
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "addon_state.h"
#include "args.h"
#include "bindings.h"
#include "errors.h"
#include "espeak_engine.h"
#include "piper_session.h"
#include "promise_worker.h"

namespace sawt {
namespace {

// A loaded voice and its runs in flight by tag (main thread only).
struct PiperState {
  std::shared_ptr<PiperModel> model;
  std::multimap<uint32_t, std::shared_ptr<PiperRun>> runs;
};

struct SynthesisSettings {
  PiperScales scales;
  int64_t sid = 0;
  int inRate = 22050, outRate = 22050;
  float volume = 1.0f;
  int silenceMs = 0;
  uint32_t tag = 0;
};

// One synthesis, through the addon's bounded queue of ONNX runs.
class SynthesizeWorker : public OnnxRunPromiseWorker {
 public:
  SynthesizeWorker(Napi::Env env, std::shared_ptr<PiperState> state, Napi::TypedArray ids, SynthesisSettings settings)
      : OnnxRunPromiseWorker(env, "sawt.piper.run"),
        state_(std::move(state)),
        settings_(settings),
        run_(std::make_shared<PiperRun>()),
        idsRef_(Napi::Persistent(ids.As<Napi::Object>())),
        ids_(reinterpret_cast<const int64_t*>(static_cast<uint8_t*>(ids.ArrayBuffer().Data()) + ids.ByteOffset())),
        count_(ids.ElementLength()) {
    it_ = state_->runs.emplace(settings.tag, run_);
  }

 protected:
  void Execute() override {
    Run([&] {
      Ort::Value out = state_->model->Run(ids_, count_, settings_.scales, settings_.sid, *run_);
      const auto shape = out.GetTensorTypeAndShapeInfo().GetShape();
      const size_t n = shape.empty() ? 0 : static_cast<size_t>(std::max<int64_t>(0, shape.back()));
      samples_ = n;
      pcm_ = PiperPcm(out.GetTensorData<float>(), n, settings_.inRate, settings_.outRate, settings_.volume, settings_.silenceMs);
    });
  }

  void OnOK() override {
    Napi::Env env = Env();
    Settle();
    auto* owned = new std::vector<int16_t>(std::move(pcm_));
    Napi::ArrayBuffer buffer = owned->empty()
                                   ? Napi::ArrayBuffer::New(env, 0)
                                   : Napi::ArrayBuffer::New(
                                         env, owned->data(), owned->size() * sizeof(int16_t),
                                         [](Napi::Env, void*, std::vector<int16_t>* v) { delete v; }, owned);
    if (owned->empty()) delete owned;
    Napi::Object result = Napi::Object::New(env);
    result.Set("pcm", Napi::Int16Array::New(env, buffer.ByteLength() / 2, buffer, 0));
    result.Set("samples", Napi::Number::New(env, static_cast<double>(samples_)));
    deferred_.Resolve(result);
  }

  void OnError(const Napi::Error& error) override {
    Settle();
    OnnxRunPromiseWorker::OnError(error);
  }

 private:
  void Settle() {
    state_->runs.erase(it_);
    idsRef_.Reset();
  }

  std::shared_ptr<PiperState> state_;
  SynthesisSettings settings_;
  std::shared_ptr<PiperRun> run_;
  std::multimap<uint32_t, std::shared_ptr<PiperRun>>::iterator it_;
  Napi::ObjectReference idsRef_;
  const int64_t* ids_;
  size_t count_;
  std::vector<int16_t> pcm_;
  size_t samples_ = 0;
};

class PiperSessionObject : public Napi::ObjectWrap<PiperSessionObject> {
 public:
  explicit PiperSessionObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<PiperSessionObject>(info) {
    if (!info[0].IsExternal()) ThrowInvalidArgument(info.Env(), "Use PiperSession.create(path, options)");
    state_ = std::make_shared<PiperState>();
    state_->model = *info[0].As<Napi::External<std::shared_ptr<PiperModel>>>().Data();
    Napi::Env env = info.Env();
    info.This().As<Napi::Object>().DefineProperties({
        Napi::PropertyDescriptor::Value("inputNames", ToJsArray(env, state_->model->inputNames()), napi_enumerable),
        Napi::PropertyDescriptor::Value("hasSid", Napi::Boolean::New(env, state_->model->hasSid()), napi_enumerable),
    });
  }

  static Napi::Value Create(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    PiperSettings settings;
    settings.path = args::String(env, info[0], "path", true);
    if (info[1].IsObject()) {
      Napi::Object o = info[1].As<Napi::Object>();
      settings.cuda = args::CudaProvider(env, o);
      settings.intraOpThreads = static_cast<int>(args::IntegerField(env, o, "intraOpThreads", 1, 256, 1));
    }
    return RunTask(
        env, "sawt.piper.load", ErrorCode::kOnnx, [settings = std::move(settings)] { return PiperModel::Load(settings); },
        [](Napi::Env env, std::shared_ptr<PiperModel>& model) {
          return AddonState::Of(env).piperSessionClass.New({SharedExternal(env, model)});
        });
  }

  Napi::Value Synthesize(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!state_) ThrowInvalidArgument(env, "This PiperSession has been released");
    // The values are checked in TypeScript (validatePiperRun); kept here: the ids' type (read in
    // place), and the bounds that size the output (length scale, rates, silence) or index (sid).
    const Napi::TypedArray ids = args::TypedArray(env, info[0], "ids", napi_bigint64_array, "BigInt64Array");
    if (ids.ElementLength() == 0) ThrowInvalidArgument(env, "Expected a non-empty BigInt64Array of phoneme ids");
    Napi::Object o = args::Object(env, info[1], "options");
    constexpr double kAny = 1e300;  // a finite number
    SynthesisSettings s;
    s.scales.noiseScale = static_cast<float>(args::NumberField(env, o, "noiseScale", -kAny, kAny, 0.667));
    s.scales.lengthScale = static_cast<float>(args::NumberField(env, o, "lengthScale", 0.05, 20, 1));
    s.scales.noiseW = static_cast<float>(args::NumberField(env, o, "noiseW", -kAny, kAny, 0.8));
    s.sid = args::IntegerField(env, o, "sid", 0, 1 << 30, 0);
    s.inRate = static_cast<int>(args::IntegerField(env, o, "inRate", 8000, 192000, 22050));
    s.outRate = static_cast<int>(args::IntegerField(env, o, "outRate", 8000, 192000, s.inRate));
    s.volume = static_cast<float>(args::NumberField(env, o, "volume", -kAny, kAny, 1));
    s.silenceMs = static_cast<int>(args::IntegerField(env, o, "silenceMs", 0, 10000, 0));
    s.tag = static_cast<uint32_t>(args::NumberField(env, o, "tag", 0, 4294967295.0, 0));
    return (new SynthesizeWorker(env, state_, ids, s))->Start();
  }

  Napi::Value Cancel(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!info[0].IsNumber()) ThrowInvalidArgument(env, "Expected a number for tag");
    if (state_) {
      const auto range = state_->runs.equal_range(info[0].As<Napi::Number>().Uint32Value());
      for (auto it = range.first; it != range.second; ++it) it->second->Terminate();
    }
    return env.Undefined();
  }

  Napi::Value Stats(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    Napi::Object o = Napi::Object::New(env);
    if (state_) {
      PiperStats& s = state_->model->stats();
      o.Set("started", static_cast<double>(s.started.load()));
      o.Set("finished", static_cast<double>(s.finished.load()));
      o.Set("terminated", static_cast<double>(s.terminated.load()));
      o.Set("skipped", static_cast<double>(s.skipped.load()));
      o.Set("pending", static_cast<double>(state_->runs.size()));
    }
    return o;
  }

  Napi::Value Release(const Napi::CallbackInfo& info) {
    state_.reset();
    return info.Env().Undefined();
  }

 private:
  std::shared_ptr<PiperState> state_;
};

// piperClauses(text, voice) and phonemeInputIpa(text, voice).
Napi::Value PiperClauses(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string text = args::String(env, info[0], "text"), voice = args::String(env, info[1], "voice", true);
  return RunTask(
      env, "sawt.piper.phonemes", ErrorCode::kEspeak, [text, voice] { return espeak::PhonemizeClauses(text, voice); },
      [](Napi::Env env, std::vector<espeak::IpaClause>& clauses) {
        return ToJsArray(env, clauses, [&](const auto& c) { return ToJsArray(env, std::vector<std::string>{c.phonemes, c.consumed}); });
      });
}

Napi::Value PhonemeInputIpa(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string text = args::String(env, info[0], "text"), voice = args::String(env, info[1], "voice", true);
  return RunTask(
      env, "sawt.piper.phonemes", ErrorCode::kEspeak, [text, voice] { return espeak::PhonemizeInputIpa(text, voice); },
      [](Napi::Env env, std::string& ipa) { return Napi::String::New(env, ipa); });
}

}  // namespace

Napi::Function DefinePiperSessionClass(Napi::Env env) {
  return PiperSessionObject::DefineClass(
      env, "PiperSession",
      {PiperSessionObject::StaticMethod<&PiperSessionObject::Create>("create"),
       PiperSessionObject::InstanceMethod<&PiperSessionObject::Synthesize>("synthesize"),
       PiperSessionObject::InstanceMethod<&PiperSessionObject::Cancel>("cancel"),
       PiperSessionObject::InstanceMethod<&PiperSessionObject::Stats>("stats"),
       PiperSessionObject::InstanceMethod<&PiperSessionObject::Release>("release")});
}

void RegisterPiperFunctions(Napi::Env env, Napi::Object exports) {
  exports.Set("piperClauses", Napi::Function::New(env, PiperClauses, "piperClauses"));
  exports.Set("phonemeInputIpa", Napi::Function::New(env, PhonemeInputIpa, "phonemeInputIpa"));
}

}  // namespace sawt
