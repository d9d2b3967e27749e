#include "piper_session.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "errors.h"
#include "ort_shared.h"
#include "resampler.h"

namespace sawt {
namespace {

struct ExpectedInput {
  const char* name;
  ONNXTensorElementDataType type;
  const char* typeName;
};

constexpr ExpectedInput kInputs[] = {
    {"input", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, "int64"},
    {"input_lengths", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, "int64"},
    {"scales", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, "float32"},
    {"sid", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, "int64"},  // multi-speaker voices only
};

std::string Join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

}  // namespace

void PiperRun::Terminate() {
  std::lock_guard<std::mutex> guard(mutex_);
  if (terminated_.exchange(true)) return;
  options_.SetTerminate();
}

std::shared_ptr<PiperModel> PiperModel::Load(const PiperSettings& settings) {
  Ort::Env& env = SharedOrtEnv();
  auto model = std::make_shared<PiperModel>();
  try {
    Ort::SessionOptions options = OrtSessionOptions(std::max(1, settings.intraOpThreads), 1, settings.cuda);
    options.SetExecutionMode(ExecutionMode::ORT_SEQUENTIAL);
    // Idle pool threads sleep instead of spinning: the cores are shared with the
    // other runs, espeak and the HTTP server.
    options.AddConfigEntry("session.intra_op.allow_spinning", "0");
    model->session_ = std::make_unique<Ort::Session>(env, settings.path.c_str(), options);
  } catch (const Ort::Exception& e) {
    ThrowLoadFailure(e, settings.cuda, "Piper voice " + settings.path);
  }
  Ort::Session& session = *model->session_;
  Ort::AllocatorWithDefaultOptions allocator;
  std::vector<std::string> outputs;
  for (size_t i = 0; i < session.GetInputCount(); ++i) {
    model->inputNames_.push_back(session.GetInputNameAllocated(i, allocator).get());
  }
  for (size_t i = 0; i < session.GetOutputCount(); ++i) {
    outputs.push_back(session.GetOutputNameAllocated(i, allocator).get());
  }
  const std::string found = "; the model has inputs " + Join(model->inputNames_) + " and outputs " + Join(outputs) +
                            " (Piper voices have inputs input, input_lengths, scales and, with several speakers, "
                            "sid; and one float32 output)";
  for (size_t i = 0; i < model->inputNames_.size(); ++i) {
    const std::string& name = model->inputNames_[i];
    const ExpectedInput* expected = nullptr;
    for (const auto& e : kInputs) {
      if (name == e.name) expected = &e;
    }
    if (expected == nullptr) {
      throw EngineFailure(ErrorCode::kOnnx, settings.path + " is not a Piper voice: unexpected input '" + name + "'" + found);
    }
    const auto info = session.GetInputTypeInfo(i);
    if (info.GetONNXType() != ONNX_TYPE_TENSOR || info.GetTensorTypeAndShapeInfo().GetElementType() != expected->type) {
      throw EngineFailure(ErrorCode::kOnnx, settings.path + " is not a Piper voice: input '" + name +
                                                "' is not a " + expected->typeName + " tensor" + found);
    }
    if (name == "sid") model->hasSid_ = true;
  }
  for (const char* required : {"input", "input_lengths", "scales"}) {
    if (std::find(model->inputNames_.begin(), model->inputNames_.end(), required) == model->inputNames_.end()) {
      throw EngineFailure(ErrorCode::kOnnx,
                          settings.path + " is not a Piper voice: it has no input '" + required + "'" + found);
    }
  }
  if (outputs.size() != 1 || session.GetOutputTypeInfo(0).GetONNXType() != ONNX_TYPE_TENSOR ||
      session.GetOutputTypeInfo(0).GetTensorTypeAndShapeInfo().GetElementType() != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) {
    throw EngineFailure(ErrorCode::kOnnx, settings.path + " is not a Piper voice: it needs one float32 output" + found);
  }
  model->outputName_ = outputs[0];
  return model;
}

Ort::Value PiperModel::Run(const int64_t* ids, size_t count, const PiperScales& scales, int64_t sid, PiperRun& run) {
  if (run.Terminated()) {
    ++stats_.skipped;
    throw EngineFailure(ErrorCode::kCancelled, "Synthesis was cancelled");
  }
  ++stats_.started;
  static const Ort::MemoryInfo cpu = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  int64_t idDims[2] = {1, static_cast<int64_t>(count)};
  int64_t length = static_cast<int64_t>(count);
  int64_t one = 1, three = 3;
  float scaleValues[3] = {scales.noiseScale, scales.lengthScale, scales.noiseW};
  int64_t sidValue = sid;
  std::vector<Ort::Value> inputs;
  inputs.push_back(Ort::Value::CreateTensor<int64_t>(cpu, const_cast<int64_t*>(ids), count, idDims, 2));
  inputs.push_back(Ort::Value::CreateTensor<int64_t>(cpu, &length, 1, &one, 1));
  inputs.push_back(Ort::Value::CreateTensor<float>(cpu, scaleValues, 3, &three, 1));
  if (hasSid_) inputs.push_back(Ort::Value::CreateTensor<int64_t>(cpu, &sidValue, 1, &one, 1));
  const char* names[] = {"input", "input_lengths", "scales", "sid"};  // as many as inputs
  const char* output = outputName_.c_str();
  try {
    auto outputs = session_->Run(run.Options(), names, inputs.data(), inputs.size(), &output, 1);
    ++stats_.finished;
    return std::move(outputs[0]);
  } catch (const Ort::Exception& e) {
    if (run.Terminated()) {
      ++stats_.terminated;
      throw EngineFailure(ErrorCode::kCancelled, "Synthesis was cancelled");
    }
    ++stats_.finished;
    throw EngineFailure(ErrorCode::kOnnx, std::string("Piper run failed: ") + e.what());
  }
}

std::vector<int16_t> PiperPcm(const float* samples, size_t count, int inRate, int outRate, float volume,
                              int silenceMs) {
  float peak = 0.01f;
  for (size_t i = 0; i < count; ++i) peak = std::max(peak, std::fabs(samples[i]));
  const float gain = 32767.0f / peak * volume;
  std::vector<int16_t> pcm(count);
  for (size_t i = 0; i < count; ++i) {
    pcm[i] = static_cast<int16_t>(std::lrint(std::clamp(samples[i] * gain, -32768.0f, 32767.0f)));
  }
  const size_t silence = static_cast<size_t>(std::max(0, silenceMs)) * static_cast<size_t>(outRate) / 1000;
  if (inRate == outRate) {
    pcm.resize(pcm.size() + silence, 0);
    return pcm;
  }
  Resampler resampler(inRate, outRate);
  std::vector<int16_t> out;
  out.reserve(static_cast<size_t>(static_cast<double>(count) * outRate / inRate) + 64 + silence);
  resampler.Process(pcm.data(), pcm.size(), out);
  resampler.Flush(out);
  out.resize(out.size() + silence, 0);
  return out;
}

}  // namespace sawt
