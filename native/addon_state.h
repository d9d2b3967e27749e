// What the addon keeps per environment (the main thread, or a worker thread that loads it): made
// when the environment loads the addon (addon.cc) and deleted at its teardown, as Node-API's
// instance data. Used on that environment's JavaScript thread only.
#pragma once

#include <napi.h>

#include <memory>

#include "onnx_runs.h"

namespace sawt {

class EventPump;  // event_pump.h

struct AddonState {
  static AddonState& Of(Napi::Env env) { return *env.GetInstanceData<AddonState>(); }

  // The classes whose instances asynchronous loads resolve to.
  Napi::FunctionReference onnxSessionClass;
  Napi::FunctionReference piperSessionClass;
  // The synthesis jobs' audio events to the JavaScript thread (EventPump::Of creates it).
  std::shared_ptr<EventPump> eventPump;
  OnnxRuns onnxRuns;
};

}  // namespace sawt
