// Entry point of sawt_native.node: see addon.h; the exported API is documented
// in native/lib/addon.ts.
#include "addon.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "args.h"
#include "chunk_event.h"
#include "dfn3_binding.h"
#include "encoders_binding.h"
#include "errors.h"
#include "espeak_engine.h"
#include "hts_binding.h"
#include "onnx_binding.h"
#include "ort_shared.h"
#include "piper_binding.h"
#include "priority_pool.h"
#include "promise_worker.h"
#include "resampler_binding.h"
#include "synthesis.h"
#include "voice_binding.h"

namespace sawt {
namespace {

// A phonemize call between the JavaScript thread and its pool thread (pools::Phonemize); the result
// reaches JS through a thread-safe function per call.
struct PhonemizeCall {
  std::string text, voice, result, error;
  bool ipa = true;
  ErrorCode code = ErrorCode::kEspeak;
  bool failed = false;
  Napi::Promise::Deferred deferred;
  explicit PhonemizeCall(Napi::Env env) : deferred(Napi::Promise::Deferred::New(env)) {}
};

// Main thread: settles the call's promise (env is null at environment teardown: nothing to settle).
void SettlePhonemize(Napi::Env env, Napi::Function, PhonemizeCall* call, void*) {
  std::unique_ptr<PhonemizeCall> owned(call);
  if (env == nullptr) return;
  if (call->failed) {
    call->deferred.Reject(MakeError(env, call->code, call->error).Value());
  } else {
    call->deferred.Resolve(Napi::String::New(env, call->result));
  }
}

using PhonemizeChannel = Napi::TypedThreadSafeFunction<PhonemizeCall, void, SettlePhonemize>;

// A pool thread: runs the call and hands it to the main thread.
void RunPhonemize(PhonemizeCall* call, PhonemizeChannel channel) {
  try {
    call->result = espeak::Phonemize(call->text, call->voice, call->ipa);
  } catch (const EngineFailure& failure) {
    call->failed = true;
    call->code = failure.code();
    call->error = failure.what();
  } catch (const std::exception& e) {
    call->failed = true;
    call->error = e.what();
  }
  if (channel.BlockingCall(call) != napi_ok) delete call;  // the environment is gone
  channel.Release();
}

// phonemize(text, voice, mode?, urgent?): mode "ipa" (default) or "espeak" (espeak's mnemonics, for
// [[ ]] input); urgent (default false): goes ahead of waiting calls that are not.
Napi::Value Phonemize(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::string text = args::String(env, info[0], "text");
  std::string voice = args::String(env, info[1], "voice", true);
  bool ipa = true;
  if (info.Length() > 2 && !info[2].IsUndefined()) {
    const std::string mode = info[2].IsString() ? info[2].As<Napi::String>().Utf8Value() : "";
    if (mode != "ipa" && mode != "espeak") ThrowInvalidArgument(env, "Expected \"ipa\" or \"espeak\" for mode");
    ipa = mode == "ipa";
  }
  bool urgent = false;
  if (info.Length() > 3 && !info[3].IsUndefined()) {
    if (!info[3].IsBoolean()) ThrowInvalidArgument(env, "Expected a boolean for urgent");
    urgent = info[3].As<Napi::Boolean>().Value();
  }
  auto* call = new PhonemizeCall(env);
  call->text = std::move(text);
  call->voice = std::move(voice);
  call->ipa = ipa;
  Napi::Promise promise = call->deferred.Promise();
  // Holds the event loop open until the call is settled (a CLI awaiting it must not exit first).
  PhonemizeChannel channel = PhonemizeChannel::New(env, "sawt.phonemize", 0, 1, call);
  static auto* pool = new PriorityPool(pools::Phonemize());  // lives as long as the process
  pool->Submit([call, channel](int) { RunPhonemize(call, channel); }, urgent);
  return promise;
}

Napi::Value ListVoices(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<espeak::VoiceInfo> voices;
  try {
    voices = espeak::ListVoices();
  } catch (const EngineFailure& failure) {
    throw MakeError(env, failure);
  }
  Napi::Array result = Napi::Array::New(env, voices.size());
  for (size_t i = 0; i < voices.size(); ++i) {
    Napi::Object voice = Napi::Object::New(env);
    voice.Set("name", voices[i].name);
    Napi::Array languages = Napi::Array::New(env, voices[i].languages.size());
    for (size_t j = 0; j < voices[i].languages.size(); ++j) {
      languages.Set(static_cast<uint32_t>(j), voices[i].languages[j]);
    }
    voice.Set("languages", languages);
    voice.Set("identifier", voices[i].identifier);
    result.Set(static_cast<uint32_t>(i), voice);
  }
  return result;
}

// espeakInstances(count?): sets the espeak-ng instances (before the first use; later calls change
// nothing) and returns the count in force.
Napi::Value EspeakInstances(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info.Length() > 0 && !info[0].IsUndefined()) {
    return Napi::Number::New(env, espeak::SetInstances(static_cast<int>(args::Integer(env, info[0], "count", 1, 8))));
  }
  return Napi::Number::New(env, espeak::Instances());
}

Napi::Value PcmInFlightValue(const Napi::CallbackInfo& info) {
  const PcmInFlight live = PcmChunksInFlight();
  Napi::Object result = Napi::Object::New(info.Env());
  result.Set("chunks", static_cast<double>(live.chunks));
  result.Set("bytes", static_cast<double>(live.bytes));
  return result;
}

// One ONNX run between its thread and the main thread. The run's result reaches the main thread
// through a thread-safe function of its own (its "channel"), which holds the event loop open until
// the run is settled, as queued libuv work did.
struct OnnxRun {
  OnnxRunPromiseWorker* worker;
  bool settled = false;  // main thread: the worker settled its promise and deleted itself
  std::mutex mutex;
  std::condition_variable threadDoneWake;
  bool threadDone = false;  // the run's thread no longer uses the channel
  explicit OnnxRun(OnnxRunPromiseWorker* w) : worker(w) {}
};
using OnnxRunHandle = std::shared_ptr<OnnxRun>;

// Main thread: settles a finished run (its promise, its place in the queue) and deletes its worker.
// env is null when the environment is torn down with the result still queued: the channel's
// finalizer (below) has dealt with the run, and `run` is not used.
void SettleOnnxRun(Napi::Env env, Napi::Function, OnnxRunHandle* run, void*) {
  if (env == nullptr) return;
  (*run)->settled = true;
  (*run)->worker->OnWorkComplete(env, napi_ok);
}

using OnnxRunChannel = Napi::TypedThreadSafeFunction<OnnxRunHandle, void, SettleOnnxRun>;

// Main thread, when the channel is destroyed: once the run is settled, or at environment teardown
// with the run unsettled (maybe still running: this waits for its thread to let go of the channel,
// as Node-API requires, and deletes the worker, whose promise nobody can await any more).
void CloseOnnxRunChannel(Napi::Env, void*, OnnxRunHandle* run) {
  std::unique_ptr<OnnxRunHandle> owned(run);
  OnnxRun& r = **run;
  {
    std::unique_lock<std::mutex> guard(r.mutex);
    r.threadDoneWake.wait(guard, [&] { return r.threadDone; });
  }
  if (!r.settled) delete r.worker;
}

}  // namespace

// The addon's ONNX run threads (one environment's): SawtAddon lets at most as many runs as there
// are threads in at once, so a run submitted here starts at once. Each thread is niced
// (kOnnxThreadNice) at its start; so are the threads ONNX Runtime starts (UseNicedOrtThreads).
class OnnxRunThreads {
 public:
  explicit OnnxRunThreads(int count) {
    for (int i = 0; i < count; ++i) threads_.emplace_back([this] { Loop(); });
  }

  // Environment teardown (main thread): every run's channel is gone by then (each was finalized,
  // after its thread let go of it), so the threads are idle or about to be; they end and are joined.
  ~OnnxRunThreads() {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& thread : threads_) thread.join();
  }

  // Main thread.
  void Submit(OnnxRunPromiseWorker* worker) {
    auto run = std::make_shared<OnnxRun>(worker);
    auto* context = new OnnxRunHandle(run);
    OnnxRunChannel channel;
    try {
      channel = OnnxRunChannel::New(worker->Env(), "sawt.onnx.run", 0, 1, context, CloseOnnxRunChannel);
    } catch (...) {
      delete context;
      throw;
    }
    {
      std::lock_guard<std::mutex> guard(mutex_);
      jobs_.push_back(Job{std::move(run), channel});
    }
    wake_.notify_one();
  }

 private:
  struct Job {
    OnnxRunHandle run;
    OnnxRunChannel channel;
  };

  void Loop() {
    NiceOnnxThread("sawt-onnx");
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> guard(mutex_);
        wake_.wait(guard, [&] { return stopping_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job.run->worker->ExecuteOnRunThread();
      // napi_closing: the environment is being torn down; the channel must not be used again.
      if (job.channel.BlockingCall() != napi_closing) job.channel.Release();
      {
        std::lock_guard<std::mutex> guard(job.run->mutex);
        job.run->threadDone = true;
      }
      job.run->threadDoneWake.notify_all();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Job> jobs_;
  bool stopping_ = false;
};

SawtAddon::SawtAddon(Napi::Env env, Napi::Object exports) {
  exports.Set("phonemize", Napi::Function::New(env, Phonemize, "phonemize"));
  exports.Set("listVoices", Napi::Function::New(env, ListVoices, "listVoices"));
  exports.Set("espeakInstances", Napi::Function::New(env, EspeakInstances, "espeakInstances"));
  Napi::Object rateRange = Napi::Object::New(env);
  rateRange.Set("min", espeak::kMinRate);
  rateRange.Set("max", espeak::kMaxRate);
  rateRange.Freeze();
  exports.Set("espeakRateRange", rateRange);
  exports.Set("createSynthesis", Napi::Function::New(env, CreateSynthesis, "createSynthesis"));
  exports.Set("pcmInFlight", Napi::Function::New(env, PcmInFlightValue, "pcmInFlight"));
  RegisterHtsFunctions(env, exports);
  exports.Set("Resampler", DefineResamplerClass(env));
  exports.Set("AudioEncoder", DefineEncoderClass(env));
  Napi::Function sessionClass = DefineOnnxSessionClass(env);
  onnxSessionClass = Napi::Persistent(sessionClass);
  exports.Set("OnnxSession", sessionClass);
  exports.Set("availableProviders", Napi::Function::New(env, AvailableProviders, "availableProviders"));
  RegisterVoiceFunctions(env, exports);
  RegisterDfn3Functions(env, exports);
  Napi::Function piperClass = DefinePiperSessionClass(env);
  piperSessionClass = Napi::Persistent(piperClass);
  exports.Set("PiperSession", piperClass);
  RegisterPiperFunctions(env, exports);
}

SawtAddon::~SawtAddon() = default;

void SawtAddon::QueueOnnxRun(OnnxRunPromiseWorker* worker) {
  if (activeOnnxRuns_ < kMaxConcurrentOnnxRuns) {
    StartOnnxRun(worker);
  } else {
    waitingOnnxRuns_.push_back(worker);
  }
}

void SawtAddon::OnnxRunFinished() {
  --activeOnnxRuns_;
  if (!waitingOnnxRuns_.empty()) {
    OnnxRunPromiseWorker* next = waitingOnnxRuns_.front();
    waitingOnnxRuns_.pop_front();
    StartOnnxRun(next);
  }
}

void SawtAddon::StartOnnxRun(OnnxRunPromiseWorker* worker) {
  if (!onnxRunThreads_) onnxRunThreads_ = std::make_unique<OnnxRunThreads>(kMaxConcurrentOnnxRuns);
  onnxRunThreads_->Submit(worker);
  ++activeOnnxRuns_;
}

}  // namespace sawt

using sawt::SawtAddon;
NODE_API_ADDON(SawtAddon)
