// A Piper (VITS) voice in ONNX Runtime, engine side. Piper's export (piper_train/export_onnx.py) has
// inputs input int64 [1, T] phoneme ids, input_lengths int64 [1], scales float32 [3] (noise_scale,
// length_scale, noise_w) and, with several speakers, sid int64 [1]; and one output float32 [1, 1, 1, N]
// (mono audio in (-1, 1)). Load checks them: a file that is not a Piper voice fails at startup.
// Run() may be called from several threads at once; PiperRun::Terminate (any thread) raises ONNX
// Runtime's terminate flag: the operators stop at their next check and Run throws kCancelled.
#pragma once

#include <onnxruntime_cxx_api.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace sawt {

struct PiperSettings {
  std::string path;
  bool cuda = false;
  int intraOpThreads = 1;
};

struct PiperScales {
  float noiseScale = 0.667f;
  float lengthScale = 1.0f;
  float noiseW = 0.8f;
};

// One run: its terminate flag can be raised from any thread, before or during Run.
class PiperRun {
 public:
  void Terminate();
  bool Terminated() const { return terminated_.load(); }
  Ort::RunOptions& Options() { return options_; }

 private:
  std::atomic<bool> terminated_{false};
  std::mutex mutex_;
  Ort::RunOptions options_;
};

// Counters of a model's runs (for tests and logs): started, finished, terminated.
struct PiperStats {
  std::atomic<uint64_t> started{0}, finished{0}, terminated{0}, skipped{0};
};

class PiperModel {
 public:
  // Loads and checks the model (throws EngineFailure: kOnnx with what differs
  // from Piper's I/O, kCudaUnavailable naming what is missing).
  static std::shared_ptr<PiperModel> Load(const PiperSettings& settings);

  bool hasSid() const { return hasSid_; }
  const std::vector<std::string>& inputNames() const { return inputNames_; }
  PiperStats& stats() { return stats_; }

  // Runs ids (used in place, not copied) and returns the output value; the
  // samples are its last dimension. Throws EngineFailure.
  Ort::Value Run(const int64_t* ids, size_t count, const PiperScales& scales, int64_t sid, PiperRun& run);

 private:
  std::unique_ptr<Ort::Session> session_;
  std::vector<std::string> inputNames_;
  std::string outputName_;
  bool hasSid_ = false;
  PiperStats stats_;
};

// Audio of one sentence as int16 PCM at `outRate`: peak-normalized as Piper's C++
// does (32767 / max(0.01, max|x|)) times `volume`, resampled (band-limited) from
// `inRate`, followed by `silenceMs` of silence.
std::vector<int16_t> PiperPcm(const float* samples, size_t count, int inRate, int outRate, float volume,
                              int silenceMs);

}  // namespace sawt
