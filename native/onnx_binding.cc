// Node-API side of onnx_session.h: the OnnxSession class. create() loads on libuv's pool; run()
// executes on the environment's ONNX pool (onnx_runs.h).
// - Inputs: tensors over the feeds' TypedArray memory (no copy), each TypedArray referenced until
//   the run settles: JS must not write to a feed while its run is pending.
// - Outputs: each Ort::Value moves to the heap and backs an external ArrayBuffer (no copy), freed
//   by its finalizer. release() drops the JS object's share of the session; runs in flight keep theirs.
#include <onnxruntime_cxx_api.h>

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "addon_state.h"
#include "args.h"
#include "bindings.h"
#include "errors.h"
#include "onnx_session.h"
#include "promise_worker.h"

namespace sawt {
namespace {

// The TypedArray that holds a tensor of `type` (bool as uint8).
napi_typedarray_type ArrayType(const OnnxElementType& type) {
  switch (type.onnx) {
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT: return napi_float32_array;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE: return napi_float64_array;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64: return napi_bigint64_array;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32: return napi_int32_array;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16: return napi_int16_array;
    case ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8: return napi_int8_array;
    default: return napi_uint8_array;  // uint8, bool
  }
}

Napi::Array DescribeToJs(Napi::Env env, const std::vector<TensorDescription>& tensors) {
  return ToJsArray(env, tensors, [&](const TensorDescription& t) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("name", t.name);
    o.Set("type", t.type);
    o.Set("dims", ToJsArray(env, t.dims));
    return o;
  });
}

class OnnxRunWorker : public OnnxRunPromiseWorker {
 public:
  OnnxRunWorker(Napi::Env env, std::shared_ptr<OnnxModel> model) : OnnxRunPromiseWorker(env, "sawt.onnx.run"), model_(std::move(model)) {}

  // Main thread, before queueing.
  void AddInput(const std::string& name, Ort::Value value, Napi::Value owner) {
    inputNames_.push_back(name);
    inputs_.push_back(std::move(value));
    owners_.push_back(Napi::Persistent(owner.As<Napi::Object>()));
  }
  void AddOutput(const std::string& name) { outputNames_.push_back(name); }

 protected:
  void Execute() override {
    Run([&] { outputs_ = RunOnnxModel(*model_, inputNames_, inputs_, outputNames_); });
  }

  void OnOK() override {
    Napi::Env env = Env();
    ReleaseInputs();
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
    ReleaseInputs();
    OnnxRunPromiseWorker::OnError(error);
  }

 private:
  // Main thread: frees the inputs and their TypedArrays.
  void ReleaseInputs() {
    inputs_.clear();
    for (auto& owner : owners_) owner.Reset();
  }

  static Napi::Value OutputToJs(Napi::Env env, const std::string& name, Ort::Value& value) {
    if (!value.IsTensor()) throw MakeError(env, ErrorCode::kOnnx, "Output " + name + " is not a tensor");
    auto info = value.GetTensorTypeAndShapeInfo();
    const OnnxElementType* type = FindOnnxType(info.GetElementType());
    if (type == nullptr) {
      throw MakeError(env, ErrorCode::kOnnx, "Output " + name + " has unsupported type " + OnnxTypeName(info.GetElementType()));
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
          env, data, count * type->size, [](Napi::Env, void*, Ort::Value* v) { delete v; }, owned);
    }
    Napi::Object tensor = Napi::Object::New(env);
    tensor.Set("type", type->name);
    tensor.Set("dims", ToJsArray(env, shape));
    napi_value array;
    NAPI_THROW_IF_FAILED(env, napi_create_typedarray(env, ArrayType(*type), count, buffer, 0, &array), Napi::Value());
    tensor.Set("data", Napi::Value(env, array));
    return tensor;
  }

  std::shared_ptr<OnnxModel> model_;
  std::vector<std::string> inputNames_, outputNames_;
  std::vector<Ort::Value> inputs_;
  std::vector<Napi::ObjectReference> owners_;  // the feeds' TypedArrays
  std::vector<Ort::Value> outputs_;
};

class OnnxSessionObject : public Napi::ObjectWrap<OnnxSessionObject> {
 public:
  explicit OnnxSessionObject(const Napi::CallbackInfo& info) : Napi::ObjectWrap<OnnxSessionObject>(info) {
    if (!info[0].IsExternal()) {
      ThrowInvalidArgument(info.Env(), "Use OnnxSession.create(path, options) to load a model");
    }
    model_ = *info[0].As<Napi::External<std::shared_ptr<OnnxModel>>>().Data();
    Napi::Env env = info.Env();
    Napi::Object self = info.This().As<Napi::Object>();
    const auto name = [](const TensorDescription& t) { return t.name; };
    Napi::Object metadata = Napi::Object::New(env);
    for (const auto& [key, value] : model_->metadata) metadata.Set(key, value);
    const auto readOnly = napi_enumerable;
    self.DefineProperties({
        Napi::PropertyDescriptor::Value("inputNames", ToJsArray(env, model_->inputs, name), readOnly),
        Napi::PropertyDescriptor::Value("outputNames", ToJsArray(env, model_->outputs, name), readOnly),
        Napi::PropertyDescriptor::Value("inputs", DescribeToJs(env, model_->inputs), readOnly),
        Napi::PropertyDescriptor::Value("outputs", DescribeToJs(env, model_->outputs), readOnly),
        Napi::PropertyDescriptor::Value("metadata", metadata, readOnly),
    });
  }

  // OnnxSession.create(path | model bytes (Uint8Array, copied), { executionProvider, intraOpThreads?, interOpThreads? })
  static Napi::Value Create(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    OnnxSessionSettings settings;
    if (info[0].IsTypedArray() && info[0].As<Napi::TypedArray>().TypedArrayType() == napi_uint8_array &&
        info[0].As<Napi::Uint8Array>().ElementLength() > 0) {
      Napi::Uint8Array bytes = info[0].As<Napi::Uint8Array>();
      settings.bytes.assign(bytes.Data(), bytes.Data() + bytes.ElementLength());
      settings.path = "(" + std::to_string(settings.bytes.size()) + " bytes in memory)";
    } else {
      settings.path = args::String(env, info[0], "path", true);
    }
    if (!info[1].IsUndefined()) {
      if (!info[1].IsObject()) ThrowInvalidArgument(env, "Expected an object for options");
      Napi::Object options = info[1].As<Napi::Object>();
      settings.cuda = args::CudaProvider(env, options);
      settings.intraOpThreads = static_cast<int>(args::IntegerField(env, options, "intraOpThreads", 0, 256, 0));
      settings.interOpThreads = static_cast<int>(args::IntegerField(env, options, "interOpThreads", 0, 256, 0));
    }
    return RunTask(
        env, "sawt.onnx.create", ErrorCode::kOnnx, [settings = std::move(settings)] { return LoadOnnxModel(settings); },
        [](Napi::Env env, std::shared_ptr<OnnxModel>& model) {
          return AddonState::Of(env).onnxSessionClass.New({SharedExternal(env, model)});
        });
  }

  // run(feeds, outputNames?, background?) -> Promise<Record<string, Tensor>> (background: OnnxRuns)
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
    return worker->Start(info[2].ToBoolean().Value());
  }

  Napi::Value Release(const Napi::CallbackInfo& info) {
    model_.reset();
    return info.Env().Undefined();
  }

 private:
  static bool Has(const std::vector<TensorDescription>& tensors, const std::string& name) {
    return std::any_of(tensors.begin(), tensors.end(), [&](const auto& t) { return t.name == name; });
  }

  // Wraps a feed's TypedArray memory in a tensor (no copy).
  static Ort::Value ToTensor(Napi::Env env, const Ort::MemoryInfo& cpu, const std::string& name, const Napi::Value& feed) {
    if (!feed.IsObject()) ThrowInvalidArgument(env, "Expected an object {type, dims, data} for feed " + name);
    Napi::Object object = feed.As<Napi::Object>();
    Napi::Value typeValue = object.Get("type");
    const OnnxElementType* type = typeValue.IsString() ? FindOnnxType(typeValue.As<Napi::String>().Utf8Value()) : nullptr;
    if (type == nullptr) ThrowInvalidArgument(env, "Unsupported type for feed " + name);
    Napi::Value dimsValue = object.Get("dims");
    if (!dimsValue.IsArray()) ThrowInvalidArgument(env, "Expected an array of dims for feed " + name);
    Napi::Array dimsArray = dimsValue.As<Napi::Array>();
    std::vector<int64_t> dims;
    size_t count = 1;
    for (uint32_t i = 0; i < dimsArray.Length(); ++i) {
      const int64_t n = args::Integer(env, dimsArray.Get(i), "dims[" + std::to_string(i) + "] of feed " + name, 0, INT64_C(1) << 53);
      dims.push_back(n);
      count *= static_cast<size_t>(n);
    }
    Napi::Value data = object.Get("data");
    if (!data.IsTypedArray() || data.As<Napi::TypedArray>().TypedArrayType() != ArrayType(*type)) {
      ThrowInvalidArgument(env, "Feed " + name + " of type " + type->name + " needs matching TypedArray data");
    }
    Napi::TypedArray array = data.As<Napi::TypedArray>();
    if (array.ElementLength() != count) {
      ThrowInvalidArgument(env, "Feed " + name + " has " + std::to_string(array.ElementLength()) + " elements but its dims need " +
                                    std::to_string(count));
    }
    auto* bytes = static_cast<uint8_t*>(array.ArrayBuffer().Data()) + array.ByteOffset();
    return Ort::Value::CreateTensor(cpu, bytes, count * type->size, dims.data(), dims.size(), type->onnx);
  }

  std::shared_ptr<OnnxModel> model_;
};

}  // namespace

Napi::Function DefineOnnxSessionClass(Napi::Env env) {
  return OnnxSessionObject::DefineClass(env, "OnnxSession",
                                        {OnnxSessionObject::StaticMethod<&OnnxSessionObject::Create>("create"),
                                         OnnxSessionObject::InstanceMethod<&OnnxSessionObject::Run>("run"),
                                         OnnxSessionObject::InstanceMethod<&OnnxSessionObject::Release>("release")});
}

Napi::Value AvailableProviders(const Napi::CallbackInfo& info) {
  try {
    return ToJsArray(info.Env(), AvailableOnnxProviders());
  } catch (const EngineFailure& failure) {
    throw MakeError(info.Env(), failure);
  }
}

}  // namespace sawt
