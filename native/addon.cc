// Entry point of sawt_native.node: per environment, an AddonState (addon_state.h) and the
// exports, which native/lib types engine by engine.
#include <napi.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "addon_state.h"
#include "args.h"
#include "bindings.h"
#include "chunk_event.h"
#include "priority_pool.h"
#include "promise_worker.h"

namespace sawt {
namespace {

Napi::Value PcmInFlightValue(const Napi::CallbackInfo& info) {
  const PcmInFlight live = PcmChunksInFlight();
  Napi::Object result = Napi::Object::New(info.Env());
  result.Set("chunks", static_cast<double>(live.chunks));
  result.Set("bytes", static_cast<double>(live.bytes));
  return result;
}

// Test-only export poolOrder(lanes, tasks): runs `tasks` ([name, urgent] pairs, submitted in that
// order) on a pool of its own and resolves to their names in the order they ran. "shared": one
// thread, held until every task is queued. "split": one urgent and one later thread; urgent tasks
// are held until the first later task waits in YieldToUrgent (laterYield: a minute).
std::vector<std::string> RunPoolOrder(bool split, const std::vector<std::pair<std::string, bool>>& tasks) {
  std::vector<std::string> order;
  std::mutex mutex;
  std::condition_variable changed;
  bool held = true, laterWaiting = !split || std::none_of(tasks.begin(), tasks.end(), [](const auto&t) { return !t.second; });
  const auto waitFor = [&](const bool& flag, bool value) {
    std::unique_lock<std::mutex> guard(mutex);
    changed.wait(guard, [&] { return flag == value; });
  };
  const auto set = [&](bool& flag, bool value) {
    std::lock_guard<std::mutex> guard(mutex);
    flag = value;
    changed.notify_all();
  };
  PriorityPool::Settings settings{"sawt-test", 1};
  settings.splitLanes = split;
  settings.laterYield = std::chrono::minutes(1);
  {
    PriorityPool pool(settings);
    bool blocking = false;
    if (!split) {
      pool.Submit([&](int) {
        set(blocking, true);
        waitFor(held, false);
      },
                  false);
      waitFor(blocking, true);
    }
    for (const auto& [name, urgent] : tasks) {
      pool.Submit([&, name = name, urgent = urgent](int) {
        if (split && urgent) waitFor(laterWaiting, true);
        if (split && !urgent) {
          set(laterWaiting, true);
          pool.YieldToUrgent();
        }
        std::lock_guard<std::mutex> guard(mutex);
        order.push_back(name);
      },
                  urgent);
    }
    set(held, false);
  }  // runs what is queued, joins
  return order;
}

Napi::Value PoolOrder(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const bool split = args::String(env, info[0], "lanes") == "split";
  const Napi::Array list = info[1].As<Napi::Array>();
  std::vector<std::pair<std::string, bool>> tasks;
  for (uint32_t i = 0; i < list.Length(); ++i) {
    const Napi::Array task = list.Get(i).As<Napi::Array>();
    tasks.emplace_back(args::String(env, task.Get(0u), "name"), task.Get(1u).ToBoolean());
  }
  return RunTask(
      env, "sawt.poolOrder", std::nullopt, [split, tasks = std::move(tasks)] { return RunPoolOrder(split, tasks); },
      [](Napi::Env env, const std::vector<std::string>& order) { return ToJsArray(env, order); });
}

}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* state = new AddonState();
  env.SetInstanceData(state);  // deleted at environment teardown
  RegisterEspeakFunctions(env, exports);
  exports.Set("pcmInFlight", Napi::Function::New(env, PcmInFlightValue, "pcmInFlight"));
  RegisterHtsFunctions(env, exports);
  exports.Set("Resampler", DefineResamplerClass(env));
  exports.Set("AudioEncoder", DefineEncoderClass(env));
  Napi::Function sessionClass = DefineOnnxSessionClass(env);
  state->onnxSessionClass = Napi::Persistent(sessionClass);
  exports.Set("OnnxSession", sessionClass);
  exports.Set("availableProviders", Napi::Function::New(env, AvailableProviders, "availableProviders"));
  RegisterVoiceFunctions(env, exports);
  RegisterDfn3Functions(env, exports);
  Napi::Function piperClass = DefinePiperSessionClass(env);
  state->piperSessionClass = Napi::Persistent(piperClass);
  exports.Set("PiperSession", piperClass);
  RegisterPiperFunctions(env, exports);
  exports.Set("poolOrder", Napi::Function::New(env, PoolOrder, "poolOrder"));
  return exports;
}

}  // namespace sawt

namespace {
Napi::Object InitAddon(Napi::Env env, Napi::Object exports) { return sawt::Init(env, exports); }
}  // namespace
NODE_API_MODULE(sawt_native, InitAddon)
