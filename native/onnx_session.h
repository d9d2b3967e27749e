// ONNX Runtime models for OnnxSession, engine side. One Ort::Env per process, never destroyed (shared by
// every environment; ort_shared.h). A loaded model is immutable and shared by its JS object and its runs
// in flight (ONNX Runtime sessions allow concurrent Run() calls).
#pragma once

#include <onnxruntime_cxx_api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sawt {

// A tensor element type that runs accept and return.
struct OnnxElementType {
  ONNXTensorElementDataType onnx;
  const char* name;
  size_t size;
};

constexpr OnnxElementType kOnnxElementTypes[] = {
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, "float32", 4},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE, "float64", 8},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, "int64", 8},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, "int32", 4},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT16, "int16", 2},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8, "int8", 1},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8, "uint8", 1},
    {ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL, "bool", 1},
};

// nullptr when the type is not one of kOnnxElementTypes.
const OnnxElementType* FindOnnxType(ONNXTensorElementDataType onnx);
const OnnxElementType* FindOnnxType(const std::string& name);
// One of kOnnxElementTypes' names, or e.g. "float16", "unknown".
std::string OnnxTypeName(ONNXTensorElementDataType onnx);

struct TensorDescription {
  std::string name;
  std::string type;  // one of kOnnxElementTypes' names, or e.g. "float16", "sequence"
  std::vector<int64_t> dims;  // -1 where dynamic
};

struct OnnxModel {
  std::unique_ptr<Ort::Session> session;
  std::vector<TensorDescription> inputs, outputs;
  std::map<std::string, std::string> metadata;
};

struct OnnxSessionSettings {
  std::string path;  // the model file, or a label for messages when `bytes` holds the model
  std::vector<uint8_t> bytes;
  bool cuda = false;
  int intraOpThreads = 0;  // 0: ONNX Runtime's default
  int interOpThreads = 0;
};

// Any thread. Throws EngineFailure (kOnnx, kCudaUnavailable).
std::shared_ptr<OnnxModel> LoadOnnxModel(const OnnxSessionSettings& settings);

// Any thread: runs `model` on `inputs` (named by inputNames) and returns the outputs named by
// outputNames, in that order. Throws EngineFailure (kOnnx).
std::vector<Ort::Value> RunOnnxModel(const OnnxModel& model, const std::vector<std::string>& inputNames,
                                     const std::vector<Ort::Value>& inputs, const std::vector<std::string>& outputNames);

// The execution providers of the loaded ONNX Runtime (e.g. "CPUExecutionProvider"). Throws EngineFailure.
std::vector<std::string> AvailableOnnxProviders();

}  // namespace sawt
