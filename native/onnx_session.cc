#include "onnx_session.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "errors.h"
#include "ort_shared.h"
#include "priority_pool.h"

namespace sawt {
namespace {

// ONNX Runtime's telemetry (Linux builds of 1.2x) leaves mat-debug-<pid>.log and a shared .ses in the
// temporary folder, which nothing reads: removed once the environment is up (the log whatever it holds,
// .ses when this process made it). A log of "database is locked" (workers starting together), kept
// while only empty logs went, failed test/http/client-aborts' "nothing in the OS temp dir".
class TelemetryFiles {
 public:
  TelemetryFiles() {
    const char* dir = std::getenv("TMPDIR");
    dir_ = dir != nullptr && *dir != '\0' ? dir : "/tmp";
    struct stat st;
    ses_existed_ = stat(Ses().c_str(), &st) == 0;
  }

  void RemoveOurs() const {
    struct stat st;
    const std::string log = dir_ + "/mat-debug-" + std::to_string(getpid()) + ".log";
    if (stat(log.c_str(), &st) == 0 && S_ISREG(st.st_mode)) unlink(log.c_str());
    if (!ses_existed_ && stat(Ses().c_str(), &st) == 0 && S_ISREG(st.st_mode)) unlink(Ses().c_str());
  }

 private:
  std::string Ses() const { return dir_ + "/.ses"; }
  std::string dir_;
  bool ses_existed_ = false;
};

// Any thread. The C++ API is initialized by hand (ORT_API_MANUAL_INIT) so that a
// runtime older than the headers gives an error rather than a crash.
Ort::Env& ProcessEnv() {
  static std::once_flag once;
  static Ort::Env* env = nullptr;  // intentionally leaked: sessions may outlive static destruction
  static std::string failure;
  std::call_once(once, [] {
    const OrtApi* api = OrtGetApiBase()->GetApi(ORT_API_VERSION);
    if (api == nullptr) {
      failure = std::string("ONNX Runtime ") + OrtGetApiBase()->GetVersionString() +
                " does not provide API version " + std::to_string(ORT_API_VERSION);
      return;
    }
    Ort::InitApi(api);
    try {
      const TelemetryFiles telemetry;
      env = new Ort::Env(ORT_LOGGING_LEVEL_ERROR, "sawt");
      telemetry.RemoveOurs();
    } catch (const Ort::Exception& e) {
      failure = e.what();
    }
  });
  if (env == nullptr) throw EngineFailure(ErrorCode::kOnnx, failure);
  return *env;
}

TensorDescription Describe(const std::string& name, const Ort::TypeInfo& info) {
  TensorDescription d{name, "unknown", {}};
  switch (info.GetONNXType()) {
    case ONNX_TYPE_TENSOR: {
      auto tensor = info.GetTensorTypeAndShapeInfo();
      d.type = OnnxTypeName(tensor.GetElementType());
      d.dims = tensor.GetShape();
      break;
    }
    case ONNX_TYPE_SEQUENCE: d.type = "sequence"; break;
    case ONNX_TYPE_MAP: d.type = "map"; break;
    default: break;
  }
  return d;
}

// ONNX Runtime's thread pools start their threads here (OrtSessionOptions); nullptr tells it the
// thread could not be started.
OrtCustomThreadHandle CreateNicedOrtThread(void*, OrtThreadWorkerFn work, void* param) {
  try {
    auto* thread = new std::thread([work, param] {
      SetUpThread("sawt-ort", kOnnxThreadNice);
      work(param);
    });
    return reinterpret_cast<OrtCustomThreadHandle>(thread);
  } catch (const std::exception&) {
    return nullptr;
  }
}

// Called by a pool's destructor (the session's release) once the thread's work loop returns.
void JoinNicedOrtThread(OrtCustomThreadHandle handle) {
  auto* thread = reinterpret_cast<std::thread*>(const_cast<OrtCustomHandleType*>(handle));
  thread->join();
  delete thread;
}

// The directory of the loaded libonnxruntime, where it looks for provider libraries.
std::string RuntimeDirectory() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&OrtGetApiBase), &info) == 0 || info.dli_fname == nullptr) return ".";
  const std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

void AppendCudaProvider(Ort::SessionOptions& options) {
  // Checked first: ONNX Runtime would also fail, but after logging to stderr.
  const std::string dir = RuntimeDirectory();
  for (const char* lib : {"libonnxruntime_providers_shared.so", "libonnxruntime_providers_cuda.so"}) {
    if (access((dir + "/" + lib).c_str(), R_OK) != 0) {
      throw EngineFailure(ErrorCode::kCudaUnavailable, std::string("CUDA execution provider is not available: ") +
                                                           lib + " is not installed in " + dir);
    }
  }
  const auto providers = Ort::GetAvailableProviders();
  if (std::find(providers.begin(), providers.end(), "CUDAExecutionProvider") == providers.end()) {
    throw EngineFailure(ErrorCode::kCudaUnavailable,
                        "CUDA execution provider is not available: this ONNX Runtime build has none");
  }
  try {
    OrtCUDAProviderOptionsV2* cuda = nullptr;
    Ort::ThrowOnError(Ort::GetApi().CreateCUDAProviderOptions(&cuda));
    std::unique_ptr<OrtCUDAProviderOptionsV2, decltype(Ort::GetApi().ReleaseCUDAProviderOptions)> owned(
        cuda, Ort::GetApi().ReleaseCUDAProviderOptions);
    options.AppendExecutionProvider_CUDA_V2(*cuda);
  } catch (const Ort::Exception& e) {
    throw EngineFailure(ErrorCode::kCudaUnavailable,
                        std::string("CUDA execution provider is not available: ") + e.what());
  }
}

}  // namespace

Ort::Env& SharedOrtEnv() { return ProcessEnv(); }

Ort::SessionOptions OrtSessionOptions(int intraOpThreads, int interOpThreads, bool cuda) {
  Ort::SessionOptions options;
  options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  if (intraOpThreads > 0) options.SetIntraOpNumThreads(intraOpThreads);
  if (interOpThreads > 0) options.SetInterOpNumThreads(interOpThreads);
  options.SetCustomCreateThreadFn(CreateNicedOrtThread);
  options.SetCustomJoinThreadFn(JoinNicedOrtThread);
  if (cuda) AppendCudaProvider(options);
  return options;
}

void ThrowLoadFailure(const Ort::Exception& e, bool cuda, const std::string& what) {
  if (cuda && std::string(e.what()).find("CUDA") != std::string::npos) {
    throw EngineFailure(ErrorCode::kCudaUnavailable, std::string("CUDA execution provider is not available: ") + e.what());
  }
  throw EngineFailure(ErrorCode::kOnnx, "Failed to load " + what + ": " + e.what());
}

const OnnxElementType* FindOnnxType(ONNXTensorElementDataType onnx) {
  for (const auto& t : kOnnxElementTypes) {
    if (t.onnx == onnx) return &t;
  }
  return nullptr;
}

const OnnxElementType* FindOnnxType(const std::string& name) {
  for (const auto& t : kOnnxElementTypes) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

std::string OnnxTypeName(ONNXTensorElementDataType onnx) {
  if (const OnnxElementType* t = FindOnnxType(onnx)) return t->name;
  switch (onnx) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16: return "float16";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16: return "bfloat16";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING: return "string";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT16: return "uint16";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT32: return "uint32";
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT64: return "uint64";
    default: return "unknown";
  }
}

std::shared_ptr<OnnxModel> LoadOnnxModel(const OnnxSessionSettings& settings) {
  Ort::Env& env = SharedOrtEnv();
  try {
    Ort::SessionOptions options = OrtSessionOptions(settings.intraOpThreads, settings.interOpThreads, settings.cuda);
    auto model = std::make_shared<OnnxModel>();
    model->session = settings.bytes.empty()
                         ? std::make_unique<Ort::Session>(env, settings.path.c_str(), options)
                         : std::make_unique<Ort::Session>(env, settings.bytes.data(), settings.bytes.size(), options);
    Ort::Session& session = *model->session;
    Ort::AllocatorWithDefaultOptions allocator;
    for (size_t i = 0; i < session.GetInputCount(); ++i) {
      model->inputs.push_back(
          Describe(session.GetInputNameAllocated(i, allocator).get(), session.GetInputTypeInfo(i)));
    }
    for (size_t i = 0; i < session.GetOutputCount(); ++i) {
      model->outputs.push_back(
          Describe(session.GetOutputNameAllocated(i, allocator).get(), session.GetOutputTypeInfo(i)));
    }
    Ort::ModelMetadata metadata = session.GetModelMetadata();
    for (const auto& key : metadata.GetCustomMetadataMapKeysAllocated(allocator)) {
      model->metadata[key.get()] =
          metadata.LookupCustomMetadataMapAllocated(key.get(), allocator).get();
    }
    return model;
  } catch (const Ort::Exception& e) {
    ThrowLoadFailure(e, settings.cuda, "ONNX model " + settings.path);
  }
}

std::vector<Ort::Value> RunOnnxModel(const OnnxModel& model, const std::vector<std::string>& inputNames,
                                     const std::vector<Ort::Value>& inputs, const std::vector<std::string>& outputNames) {
  std::vector<const char*> inNames, outNames;
  for (const auto& n : inputNames) inNames.push_back(n.c_str());
  for (const auto& n : outputNames) outNames.push_back(n.c_str());
  try {
    return model.session->Run(Ort::RunOptions{nullptr}, inNames.data(), inputs.data(), inputs.size(), outNames.data(),
                              outNames.size());
  } catch (const Ort::Exception& e) {
    throw EngineFailure(ErrorCode::kOnnx, std::string("ONNX run failed: ") + e.what());
  }
}

std::vector<std::string> AvailableOnnxProviders() {
  SharedOrtEnv();
  try {
    return Ort::GetAvailableProviders();
  } catch (const Ort::Exception& e) {
    throw EngineFailure(ErrorCode::kOnnx, e.what());
  }
}

}  // namespace sawt
