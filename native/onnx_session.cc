#include "onnx_session.h"

#include <dlfcn.h>
#include <onnxruntime_cxx_api.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "addon.h"
#include "errors.h"
#include "ort_shared.h"

namespace sawt {
namespace {

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
      env = new Ort::Env(ORT_LOGGING_LEVEL_ERROR, "sawt");
    } catch (const Ort::Exception& e) {
      failure = e.what();
    }
  });
  if (env == nullptr) throw EngineFailure(ErrorCode::kOnnx, failure);
  return *env;
}

struct ElementType {
  ONNXTensorElementDataType onnx;
  const char* name;
  napi_typedarray_type array;
  size_t size;
};

constexpr ElementType kElementTypes[] = {
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, "float32", napi_float32_array, 4},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE, "float64", napi_float64_array, 8},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, "int64", napi_bigint64_array, 8},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, "int32", napi_int32_array, 4},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16, "int16", napi_int16_array, 2},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8, "int8", napi_int8_array, 1},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8, "uint8", napi_uint8_array, 1},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL, "bool", napi_uint8_array, 1},
};

const ElementType* FindType(ONNXTensorElementDataType onnx) {
  for (const auto& t : kElementTypes) {
    if (t.onnx == onnx) return &t;
  }
  return nullptr;
}

const ElementType* FindType(const std::string& name) {
  for (const auto& t : kElementTypes) {
    if (name == t.name) return &t;
  }
  return nullptr;
}

struct TensorDescription {
  std::string name;
  std::string type;  // one of kElementTypes' names, or e.g. "float16", "sequence"
  std::vector<int64_t> dims;  // -1 where dynamic
};

// Immutable after creation; shared by the JS object and the runs in flight.
struct LoadedModel {
  std::unique_ptr<Ort::Session> session;
  std::vector<TensorDescription> inputs, outputs;
  std::map<std::string, std::string> metadata;
};

std::string TypeName(ONNXTensorElementDataType onnx) {
  if (const ElementType* t = FindType(onnx)) return t->name;
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

TensorDescription Describe(const std::string& name, const Ort::TypeInfo& info) {
  TensorDescription d{name, "unknown", {}};
  switch (info.GetONNXType()) {
    case ONNX_TYPE_TENSOR: {
      auto tensor = info.GetTensorTypeAndShapeInfo();
      d.type = TypeName(tensor.GetElementType());
      d.dims = tensor.GetShape();
      break;
    }
    case ONNX_TYPE_SEQUENCE: d.type = "sequence"; break;
    case ONNX_TYPE_MAP: d.type = "map"; break;
    default: break;
  }
  return d;
}

struct SessionSettings {
  std::string path;  // the model file, or a label for messages when `bytes` holds the model
  std::vector<uint8_t> bytes;
  bool cuda = false;
  int intraOpThreads = 0;  // 0: ONNX Runtime's default
  int interOpThreads = 0;
};

std::shared_ptr<LoadedModel> LoadModel(const SessionSettings& settings) {
  Ort::Env& env = ProcessEnv();
  try {
    Ort::SessionOptions options;
    options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
    if (settings.intraOpThreads > 0) options.SetIntraOpNumThreads(settings.intraOpThreads);
    if (settings.interOpThreads > 0) options.SetInterOpNumThreads(settings.interOpThreads);
    if (settings.cuda) AppendCudaProvider(options);

    auto model = std::make_shared<LoadedModel>();
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
    const std::string message = e.what();
    if (settings.cuda && message.find("CUDA") != std::string::npos) {
      throw EngineFailure(ErrorCode::kCudaUnavailable,
                          "CUDA execution provider is not available: " + message);
    }
    throw EngineFailure(ErrorCode::kOnnx, "Failed to load ONNX model " + settings.path + ": " + message);
  }
}

Napi::Array DescribeToJs(Napi::Env env, const std::vector<TensorDescription>& tensors) {
  Napi::Array result = Napi::Array::New(env, tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    Napi::Object t = Napi::Object::New(env);
    t.Set("name", tensors[i].name);
    t.Set("type", tensors[i].type);
    Napi::Array dims = Napi::Array::New(env, tensors[i].dims.size());
    for (size_t j = 0; j < tensors[i].dims.size(); ++j) {
      dims.Set(static_cast<uint32_t>(j), static_cast<double>(tensors[i].dims[j]));
    }
    t.Set("dims", dims);
    result.Set(static_cast<uint32_t>(i), t);
  }
  return result;
}

class OnnxSessionObject;

class CreateSessionWorker : public Napi::AsyncWorker {
 public:
  CreateSessionWorker(Napi::Env env, SessionSettings settings)
      : Napi::AsyncWorker(env, "sawt.onnx.create"),
        deferred_(Napi::Promise::Deferred::New(env)),
        settings_(std::move(settings)) {}
  Napi::Promise Promise() const { return deferred_.Promise(); }

 protected:
  void Execute() override {
    try {
      model_ = LoadModel(settings_);
    } catch (const EngineFailure& failure) {
      code_ = failure.code();
      SetError(failure.what());
    }
  }
  void OnOK() override;
  void OnError(const Napi::Error& error) override {
    deferred_.Reject(MakeError(Env(), code_, error.Message()).Value());
  }

 private:
  Napi::Promise::Deferred deferred_;
  SessionSettings settings_;
  std::shared_ptr<LoadedModel> model_;
  ErrorCode code_ = ErrorCode::kOnnx;
};

}  // namespace

Ort::Env& SharedOrtEnv() { return ProcessEnv(); }

// The directory of the loaded libonnxruntime, where it looks for provider libraries.
static std::string RuntimeDirectory() {
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

class OnnxRunWorker : public Napi::AsyncWorker {
 public:
  OnnxRunWorker(Napi::Env env, std::shared_ptr<LoadedModel> model)
      : Napi::AsyncWorker(env, "sawt.onnx.run"),
        deferred_(Napi::Promise::Deferred::New(env)),
        model_(std::move(model)) {}
  Napi::Promise Promise() const { return deferred_.Promise(); }

  // Main thread, before queueing.
  void AddInput(const std::string& name, Ort::Value value, Napi::Value owner) {
    inputNames_.push_back(name);
    inputs_.push_back(std::move(value));
    owners_.push_back(Napi::Persistent(owner.As<Napi::Object>()));
  }
  void AddOutput(const std::string& name) { outputNames_.push_back(name); }

 protected:
  void Execute() override {
    std::vector<const char*> inNames, outNames;
    for (const auto& n : inputNames_) inNames.push_back(n.c_str());
    for (const auto& n : outputNames_) outNames.push_back(n.c_str());
    try {
      outputs_ = model_->session->Run(Ort::RunOptions{nullptr}, inNames.data(), inputs_.data(),
                                      inputs_.size(), outNames.data(), outNames.size());
    } catch (const Ort::Exception& e) {
      SetError(std::string("ONNX run failed: ") + e.what());
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    Release();
    try {
      Napi::Object result = Napi::Object::New(env);
      for (size_t i = 0; i < outputs_.size(); ++i) {
        result.Set(outputNames_[i], OutputToJs(env, outputNames_[i], outputs_[i]));
      }
      deferred_.Resolve(result);
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    }
  }

  void OnError(const Napi::Error& error) override {
    Release();
    deferred_.Reject(MakeError(Env(), ErrorCode::kOnnx, error.Message()).Value());
  }

 private:
  // Main thread: frees the inputs and lets the next waiting run start.
  void Release() {
    inputs_.clear();
    for (auto& owner : owners_) owner.Reset();
    SawtAddon::Of(Env()).OnnxRunFinished();
  }

  static Napi::Value OutputToJs(Napi::Env env, const std::string& name, Ort::Value& value) {
    if (!value.IsTensor()) throw MakeError(env, ErrorCode::kOnnx, "Output " + name + " is not a tensor");
    auto info = value.GetTensorTypeAndShapeInfo();
    const ElementType* type = FindType(info.GetElementType());
    if (type == nullptr) {
      throw MakeError(env, ErrorCode::kOnnx,
                      "Output " + name + " has unsupported type " + TypeName(info.GetElementType()));
    }
    const size_t count = info.GetElementCount();
    const std::vector<int64_t> shape = info.GetShape();
    Napi::ArrayBuffer buffer;
    if (count == 0) {
      buffer = Napi::ArrayBuffer::New(env, 0);
    } else {
      void* data = value.GetTensorMutableRawData();
      auto* owned = new Ort::Value(std::move(value));
      buffer = Napi::ArrayBuffer::New(
          env, data, count * type->size,
          [](Napi::Env, void*, Ort::Value* v) { delete v; }, owned);
    }
    Napi::Object tensor = Napi::Object::New(env);
    tensor.Set("type", type->name);
    Napi::Array dims = Napi::Array::New(env, shape.size());
    for (size_t j = 0; j < shape.size(); ++j) dims.Set(static_cast<uint32_t>(j), static_cast<double>(shape[j]));
    tensor.Set("dims", dims);
    napi_value array;
    NAPI_THROW_IF_FAILED(env, napi_create_typedarray(env, type->array, count, buffer, 0, &array), Napi::Value());
    tensor.Set("data", Napi::Value(env, array));
    return tensor;
  }

  Napi::Promise::Deferred deferred_;
  std::shared_ptr<LoadedModel> model_;
  std::vector<std::string> inputNames_, outputNames_;
  std::vector<Ort::Value> inputs_;
  std::vector<Napi::ObjectReference> owners_;  // the feeds' TypedArrays
  std::vector<Ort::Value> outputs_;
};

void SawtAddon::QueueOnnxRun(Napi::AsyncWorker* worker) {
  if (activeOnnxRuns_ < kMaxConcurrentOnnxRuns) {
    ++activeOnnxRuns_;
    worker->Queue();
  } else {
    waitingOnnxRuns_.push_back(worker);
  }
}

void SawtAddon::OnnxRunFinished() {
  --activeOnnxRuns_;
  if (!waitingOnnxRuns_.empty()) {
    Napi::AsyncWorker* next = waitingOnnxRuns_.front();
    waitingOnnxRuns_.pop_front();
    ++activeOnnxRuns_;
    next->Queue();
  }
}

namespace {

class OnnxSessionObject : public Napi::ObjectWrap<OnnxSessionObject> {
 public:
  explicit OnnxSessionObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<OnnxSessionObject>(info) {
    if (!info[0].IsExternal()) {
      ThrowInvalidArgument(info.Env(), "Use OnnxSession.create(path, options) to load a model");
    }
    model_ = *info[0].As<Napi::External<std::shared_ptr<LoadedModel>>>().Data();
    Napi::Env env = info.Env();
    Napi::Object self = info.This().As<Napi::Object>();
    Napi::Array inputNames = Napi::Array::New(env), outputNames = Napi::Array::New(env);
    for (size_t i = 0; i < model_->inputs.size(); ++i) inputNames.Set(static_cast<uint32_t>(i), model_->inputs[i].name);
    for (size_t i = 0; i < model_->outputs.size(); ++i) outputNames.Set(static_cast<uint32_t>(i), model_->outputs[i].name);
    Napi::Object metadata = Napi::Object::New(env);
    for (const auto& [key, value] : model_->metadata) metadata.Set(key, value);
    const auto readOnly = napi_enumerable;
    self.DefineProperties({
        Napi::PropertyDescriptor::Value("inputNames", inputNames, readOnly),
        Napi::PropertyDescriptor::Value("outputNames", outputNames, readOnly),
        Napi::PropertyDescriptor::Value("inputs", DescribeToJs(env, model_->inputs), readOnly),
        Napi::PropertyDescriptor::Value("outputs", DescribeToJs(env, model_->outputs), readOnly),
        Napi::PropertyDescriptor::Value("metadata", metadata, readOnly),
    });
  }

  // OnnxSession.create(path | model bytes (Uint8Array, copied), { executionProvider, intraOpThreads?, interOpThreads? })
  static Napi::Value Create(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    SessionSettings settings;
    if (info[0].IsTypedArray() && info[0].As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array &&
        info[0].As<Napi::Uint8Array>().ElementLength() > 0) {
      Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
      settings.bytes.assign(bytes.Data(), bytes.Data() + bytes.ElementLength());
      settings.path = "(" + std::to_string(settings.bytes.size()) + " bytes in memory)";
    } else if (!info[0].IsString() || info[0].As<Napi::String>().Utf8Value().empty()) {
      ThrowInvalidArgument(env, "Expected a non-empty string for path or a non-empty Uint8Array of model bytes");
    } else {
      settings.path = info[0].As<Napi::String>().Utf8Value();
    }
    if (!info[1].IsUndefined()) {
      if (!info[1].IsObject()) ThrowInvalidArgument(env, "Expected an object for options");
      Napi::Object options = info[1].As<Napi::Object>();
      Napi::Value provider = options.Get("executionProvider");
      if (!provider.IsUndefined()) {
        const std::string name = provider.IsString() ? provider.As<Napi::String>().Utf8Value() : "";
        if (name != "cpu" && name != "cuda") {
          ThrowInvalidArgument(env, "Expected one of cpu, cuda for executionProvider");
        }
        settings.cuda = name == "cuda";
      }
      settings.intraOpThreads = Threads(env, options, "intraOpThreads");
      settings.interOpThreads = Threads(env, options, "interOpThreads");
    }
    auto* worker = new CreateSessionWorker(env, std::move(settings));
    Napi::Promise promise = worker->Promise();
    worker->Queue();
    return promise;
  }

  // run(feeds, outputNames?) -> Promise<Record<string, Tensor>>
  Napi::Value Run(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (!model_) ThrowInvalidArgument(env, "This OnnxSession has been released");
    if (!info[0].IsObject()) ThrowInvalidArgument(env, "Expected an object for feeds");
    Napi::Object feeds = info[0].As<Napi::Object>();
    auto* worker = new OnnxRunWorker(env, model_);
    try {
      static const Ort::MemoryInfo cpu = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
      for (const auto& input : model_->inputs) {
        Napi::Value feed = feeds.Get(input.name);
        if (feed.IsUndefined()) ThrowInvalidArgument(env, "Missing feed for input " + input.name);
        worker->AddInput(input.name, ToTensor(env, cpu, input.name, feed), feed.As<Napi::Object>().Get("data"));
      }
      const Napi::Array names = feeds.GetPropertyNames();
      for (uint32_t i = 0; i < names.Length(); ++i) {
        const std::string name = names.Get(i).As<Napi::String>().Utf8Value();
        if (!Has(model_->inputs, name)) ThrowInvalidArgument(env, "The model has no input named " + name);
      }
      if (info[1].IsUndefined()) {
        for (const auto& output : model_->outputs) worker->AddOutput(output.name);
      } else {
        if (!info[1].IsArray()) ThrowInvalidArgument(env, "Expected an array of output names for outputNames");
        Napi::Array wanted = info[1].As<Napi::Array>();
        for (uint32_t i = 0; i < wanted.Length(); ++i) {
          Napi::Value name = wanted.Get(i);
          if (!name.IsString() || !Has(model_->outputs, name.As<Napi::String>().Utf8Value())) {
            ThrowInvalidArgument(env, "The model has no output named " + name.ToString().Utf8Value());
          }
          worker->AddOutput(name.As<Napi::String>().Utf8Value());
        }
      }
    } catch (...) {
      delete worker;
      throw;
    }
    Napi::Promise promise = worker->Promise();
    SawtAddon::Of(env).QueueOnnxRun(worker);
    return promise;
  }

  Napi::Value Release(const Napi::CallbackInfo& info) {
    model_.reset();
    return info.Env().Undefined();
  }

 private:
  static bool Has(const std::vector<TensorDescription>& tensors, const std::string& name) {
    return std::any_of(tensors.begin(), tensors.end(), [&](const auto& t) { return t.name == name; });
  }

  static int Threads(Napi::Env env, const Napi::Object& options, const char* name) {
    Napi::Value value = options.Get(name);
    if (value.IsUndefined()) return 0;
    const double n = value.IsNumber() ? value.As<Napi::Number>().DoubleValue() : -1;
    if (!(n >= 0 && n <= 256) || n != static_cast<int>(n)) {
      ThrowInvalidArgument(env, std::string("Expected an integer between 0 and 256 for ") + name);
    }
    return static_cast<int>(n);
  }

  // Wraps a feed's TypedArray memory in a tensor (no copy).
  static Ort::Value ToTensor(Napi::Env env, const Ort::MemoryInfo& cpu, const std::string& name,
                             const Napi::Value& feed) {
    if (!feed.IsObject()) ThrowInvalidArgument(env, "Expected an object {type, dims, data} for feed " + name);
    Napi::Object object = feed.As<Napi::Object>();
    Napi::Value typeValue = object.Get("type");
    const ElementType* type = typeValue.IsString() ? FindType(typeValue.As<Napi::String>().Utf8Value()) : nullptr;
    if (type == nullptr) ThrowInvalidArgument(env, "Unsupported type for feed " + name);
    Napi::Value dimsValue = object.Get("dims");
    if (!dimsValue.IsArray()) ThrowInvalidArgument(env, "Expected an array of dims for feed " + name);
    Napi::Array dimsArray = dimsValue.As<Napi::Array>();
    std::vector<int64_t> dims;
    size_t count = 1;
    for (uint32_t i = 0; i < dimsArray.Length(); ++i) {
      Napi::Value d = dimsArray.Get(i);
      const double n = d.IsNumber() ? d.As<Napi::Number>().DoubleValue() : -1;
      if (!(n >= 0) || n != static_cast<double>(static_cast<int64_t>(n))) {
        ThrowInvalidArgument(env, "Expected non-negative integer dims for feed " + name);
      }
      dims.push_back(static_cast<int64_t>(n));
      count *= static_cast<size_t>(n);
    }
    Napi::Value data = object.Get("data");
    if (!data.IsTypedArray() || data.As<Napi::TypedArray>().TypedArrayType() != type->array) {
      ThrowInvalidArgument(env, "Feed " + name + " of type " + type->name + " needs matching TypedArray data");
    }
    Napi::TypedArray array = data.As<Napi::TypedArray>();
    if (array.ElementLength() != count) {
      ThrowInvalidArgument(env, "Feed " + name + " has " + std::to_string(array.ElementLength()) +
                                    " elements but its dims need " + std::to_string(count));
    }
    auto* bytes = static_cast<uint8_t*>(array.ArrayBuffer().Data()) + array.ByteOffset();
    return Ort::Value::CreateTensor(cpu, bytes, count * type->size, dims.data(), dims.size(), type->onnx);
  }

  std::shared_ptr<LoadedModel> model_;
};

void CreateSessionWorker::OnOK() {
  Napi::Env env = Env();
  try {
    auto* holder = new std::shared_ptr<LoadedModel>(std::move(model_));
    Napi::External<std::shared_ptr<LoadedModel>> external = Napi::External<std::shared_ptr<LoadedModel>>::New(
        env, holder, [](Napi::Env, std::shared_ptr<LoadedModel>* p) { delete p; });
    deferred_.Resolve(SawtAddon::Of(env).onnxSessionClass.New({external}));
  } catch (const Napi::Error& e) {
    deferred_.Reject(e.Value());
  }
}

}  // namespace

Napi::Function DefineOnnxSessionClass(Napi::Env env) {
  return OnnxSessionObject::DefineClass(
      env, "OnnxSession",
      {OnnxSessionObject::StaticMethod<&OnnxSessionObject::Create>("create"),
       OnnxSessionObject::InstanceMethod<&OnnxSessionObject::Run>("run"),
       OnnxSessionObject::InstanceMethod<&OnnxSessionObject::Release>("release")});
}

Napi::Value AvailableProviders(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  std::vector<std::string> providers;
  try {
    ProcessEnv();
    providers = Ort::GetAvailableProviders();
  } catch (const EngineFailure& failure) {
    throw MakeError(env, failure);
  } catch (const Ort::Exception& e) {
    throw MakeError(env, ErrorCode::kOnnx, e.what());
  }
  Napi::Array result = Napi::Array::New(env, providers.size());
  for (size_t i = 0; i < providers.size(); ++i) result.Set(static_cast<uint32_t>(i), providers[i]);
  return result;
}

}  // namespace sawt
