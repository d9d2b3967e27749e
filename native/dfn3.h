// DeepFilterNet3 speech enhancement (48 kHz) through ONNX Runtime, its STFT / ERB / deep-filter pipeline
// in C++ (after the reference libDF): Vorbis window, FFT 960, hop 480, 32 ERB bands, 96 deep-filter bins
// of order 5 (lookahead 2), features shifted by conv_lookahead 2. The models (enc, erb_dec, df_dec) run
// on windows: each emits blockFrames frames after up to contextFrames already emitted (recurrent
// warm-up) and before kRight of lookahead, so memory is bounded. Output lines up with the input (the
// STFT's delay hidden) and is exactly as long after flush. No Node-API here.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace sawt {

struct Dfn3Settings {
  // The three model files; each may come from another folder (SAWT_MODELS_DIR or the bundle).
  std::string enc, erbDec, dfDec;
  int intraOpThreads = 1;  // one thread per run: measured 3x faster than two on 2 cores
  int blockFrames = 1000;
  int contextFrames = 100;
  // Level normalization of the model's features (the audio the masks apply to is left as it
  // is): the loudest 100 ms within a second each side is brought to levelDb (dBFS, mean square).
  // The features have an absolute floor (DeepFilterNet's 1e-10 band power): without it a quiet
  // recording (speech near -45 dBFS) loses 10-15 dB of SI-SDR instead of gaining.
  bool normalizeLevel = true;
  float levelDb = -22.f;
  // DeepFilterNet's own post-filter (its mask_pf, off in DFN3's config; enhance.py --pf):
  // extra attenuation where the model already attenuates, beta as its pf_beta (0.02). 0: off.
  float postFilterBeta = 0.f;
  // Speech guard: DFN3 was trained without interfering speech (p_interfer_sp = 0), and on
  // babble it removes parts of the target talker. Per model window, two measures of what it did
  // (over 100 Hz-8 kHz): how modulated the removed part is (per ERB band, mean over 10th
  // percentile of its 50 ms power, median over bands, dB: 2-8 for stationary noise, 17-26 for
  // babble and impulsive noise) and how undecided its masks are (energy-weighted mean of
  // 4 g (1 - g): 0.18-0.41 for impulsive noise, 0.65-0.81 for babble at 0-5 dB); both are
  // running means over the windows so far. Where both are high the
  // output is blended back towards the input, down to a wet fraction of guardWet
  // (output = wet * enhanced + (1 - wet) * input), each measure ramping between its low and high.
  bool speechGuard = true;
  float guardLowDb = 8.f, guardHighDb = 14.f, guardLowMask = 0.4f, guardHighMask = 0.6f, guardWet = 0.2f;
  // High-SNR blend: DFN3 distorts the speech it keeps, so where it removes little (a high input
  // SNR) its output is worse than its input. Per model window (running means as the guard's), the
  // energy it kept over the energy it removed (all frequencies) estimates the input SNR, and the
  // output takes a share min(1, (snr / level)^2) of the input (both as power ratios), level being
  // snrBlendDb, lowered by up to snrBlendSpeechDb as the removed part is modulated like speech
  // (the guard's first measure: on babble the model removes parts of the talker too, a larger
  // distortion). Times the guard's wet fraction.
  bool snrBlend = true;
  float snrBlendDb = 16.5f, snrBlendSpeechDb = 8.f;
  bool cuda = false;  // ONNX Runtime's CUDA execution provider (OrtSessionOptions names what is missing)
};

// One set of sessions per model, shared by all streams (ONNX Runtime sessions
// allow concurrent Run() calls).
struct Dfn3Model;

// Loads the three models; throws EngineFailure (kOnnx, kCudaUnavailable).
std::shared_ptr<Dfn3Model> LoadDfn3(const Dfn3Settings& settings);

// One channel; one Process call at a time.
class Dfn3Stream {
 public:
  explicit Dfn3Stream(std::shared_ptr<Dfn3Model> model);
  ~Dfn3Stream();
  // Enhanced samples for `n` more input samples (48 kHz); with `flush`, the rest
  // (output is then exactly as long as all input). Throws EngineFailure.
  std::vector<float> Process(const float* x, size_t n, bool flush);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace sawt
