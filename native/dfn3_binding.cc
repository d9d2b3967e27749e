// Node-API side of dfn3.h:
//   dfn3Load({ enc, erbDec, dfDec } file paths, { intraOpThreads?, blockFrames?, ... }) -> Promise<model>
//   dfn3Open(model) -> stream (one per channel; shares the model's sessions)
//   dfn3Process(stream, Float32Array, flush) -> Promise<Float32Array>, through the addon's bounded
//     queue of ONNX runs; one call per stream at a time.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "args.h"
#include "bindings.h"
#include "dfn3.h"
#include "errors.h"
#include "promise_worker.h"

namespace sawt {
namespace {

struct StreamHandle {
  std::unique_ptr<Dfn3Stream> stream;
  bool busy = false;
};

// One call of a stream, through the addon's bounded queue of ONNX runs.
class ProcessWorker : public OnnxRunPromiseWorker {
 public:
  ProcessWorker(Napi::Env env, Napi::External<StreamHandle> handle, Napi::Float32Array input, bool flush)
      : OnnxRunPromiseWorker(env, "sawt.dfn3Process"),
        handleRef_(Napi::Persistent(handle)),
        inputRef_(Napi::Persistent(input)),
        stream_(handle.Data()),
        data_(input.Data()),
        n_(input.ElementLength()),
        flush_(flush) {}

 protected:
  void Execute() override {
    Run([&] { out_ = stream_->stream->Process(data_, n_, flush_); });
  }
  void OnOK() override {
    stream_->busy = false;
    deferred_.Resolve(CopyToJs(Env(), out_));
  }
  void OnError(const Napi::Error& error) override {
    stream_->busy = false;
    OnnxRunPromiseWorker::OnError(error);
  }

 private:
  Napi::Reference<Napi::External<StreamHandle>> handleRef_;
  Napi::Reference<Napi::Float32Array> inputRef_;
  StreamHandle* stream_;
  const float* data_;
  size_t n_;
  bool flush_;
  std::vector<float> out_;
};

Napi::Value Dfn3Load(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsObject()) ThrowInvalidArgument(env, "Expected an object of model files { enc, erbDec, dfDec }");
  Napi::Object files = info[0].As<Napi::Object>();
  Dfn3Settings s;
  s.enc = args::String(env, files.Get("enc"), "enc");
  s.erbDec = args::String(env, files.Get("erbDec"), "erbDec");
  s.dfDec = args::String(env, files.Get("dfDec"), "dfDec");
  if (info.Length() > 1 && info[1].IsObject()) {
    Napi::Object o = info[1].As<Napi::Object>();
    s.intraOpThreads = static_cast<int>(args::IntegerField(env, o, "intraOpThreads", 0, 256, s.intraOpThreads));
    s.blockFrames = static_cast<int>(args::IntegerField(env, o, "blockFrames", 1, 100000, s.blockFrames));
    s.contextFrames = static_cast<int>(args::IntegerField(env, o, "contextFrames", 0, 100000, s.contextFrames));
    s.normalizeLevel = args::BooleanField(env, o, "normalizeLevel", s.normalizeLevel);
    s.levelDb = static_cast<float>(args::NumberField(env, o, "levelDb", -60, 0, s.levelDb));
    s.postFilterBeta = static_cast<float>(args::NumberField(env, o, "postFilterBeta", 0, 1, s.postFilterBeta));
    s.speechGuard = args::BooleanField(env, o, "speechGuard", s.speechGuard);
    s.guardLowDb = static_cast<float>(args::NumberField(env, o, "guardLowDb", 0, 60, s.guardLowDb));
    s.guardHighDb = static_cast<float>(args::NumberField(env, o, "guardHighDb", 0, 60, s.guardHighDb));
    s.guardLowMask = static_cast<float>(args::NumberField(env, o, "guardLowMask", 0, 1, s.guardLowMask));
    s.guardHighMask = static_cast<float>(args::NumberField(env, o, "guardHighMask", 0, 1, s.guardHighMask));
    s.guardWet = static_cast<float>(args::NumberField(env, o, "guardWet", 0, 1, s.guardWet));
    s.snrBlend = args::BooleanField(env, o, "snrBlend", s.snrBlend);
    s.snrBlendDb = static_cast<float>(args::NumberField(env, o, "snrBlendDb", -20, 60, s.snrBlendDb));
    s.snrBlendSpeechDb = static_cast<float>(args::NumberField(env, o, "snrBlendSpeechDb", 0, 60, s.snrBlendSpeechDb));
    s.cuda = args::CudaProvider(env, o);
  }
  return RunTask(
      env, "sawt.dfn3Load", ErrorCode::kOnnx, [s] { return LoadDfn3(s); }, SharedExternal<Dfn3Model>);
}

Napi::Value Dfn3Open(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsExternal()) ThrowInvalidArgument(env, "Expected a DeepFilterNet3 model");
  auto* h = new StreamHandle{std::make_unique<Dfn3Stream>(*info[0].As<Napi::External<std::shared_ptr<Dfn3Model>>>().Data())};
  return Napi::External<StreamHandle>::New(env, h, [](Napi::Env, StreamHandle* p) { delete p; });
}

Napi::Value Dfn3Process(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsExternal()) ThrowInvalidArgument(env, "Expected a DeepFilterNet3 stream");
  const Napi::Float32Array samples = args::Float32Array(env, info[1], "samples");
  auto handle = info[0].As<Napi::External<StreamHandle>>();
  if (handle.Data()->busy) ThrowInvalidArgument(env, "DeepFilterNet3 stream is busy (one call at a time)");
  handle.Data()->busy = true;
  return (new ProcessWorker(env, handle, samples, info[2].ToBoolean().Value()))->Start();
}

}  // namespace

void RegisterDfn3Functions(Napi::Env env, Napi::Object exports) {
  exports.Set("dfn3Load", Napi::Function::New(env, Dfn3Load, "dfn3Load"));
  exports.Set("dfn3Open", Napi::Function::New(env, Dfn3Open, "dfn3Open"));
  exports.Set("dfn3Process", Napi::Function::New(env, Dfn3Process, "dfn3Process"));
}

}  // namespace sawt
