#include "dfn3.h"

#include <onnxruntime_cxx_api.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "errors.h"
#include "fft.h"
#include "ort_shared.h"

namespace sawt {

namespace {

using cf = std::complex<float>;

constexpr int kSr = 48000;
constexpr int kFft = 960;
constexpr int kHop = 480;
constexpr int kBins = kFft / 2 + 1;
constexpr int kErb = 32;
constexpr int kDf = 96;
constexpr int kOrder = 5;
constexpr int kDfLookahead = 2;
constexpr int kConvLookahead = 2;
constexpr int kMinErbFreqs = 2;
constexpr float kNormTau = 1.0f;
constexpr int kRight = 8;  // frames of lookahead after a window's last emitted frame
// Level normalization of the features (not of the audio): the loudest 100 ms within
// +-kLevelReach frames (1 s) sets a gain that brings it to Dfn3Settings::levelDb.
constexpr int kLevelReach = 100;
constexpr int kLevelSmooth = 5;  // frames each side of the 100 ms power
constexpr float kMinLevelGain = 0.25f, kMaxLevelGain = 100.f;
// Speech guard (Dfn3Settings::speechGuard): ERB bands within 100 Hz-8 kHz (50 Hz a bin), at
// least kGuardMinFrames frames to measure, kGuardRamp frames to move from one window's wet
// fraction to the next.
constexpr int kGuardLoBin = 2, kGuardHiBin = 160, kGuardMinFrames = 50, kGuardRamp = 50;
constexpr double kGuardMemory = 1000;

float Freq2Erb(float f) { return 9.265f * std::log1p(f / (24.7f * 9.265f)); }
float Erb2Freq(float e) { return 24.7f * 9.265f * (std::exp(e / 9.265f) - 1.f); }

std::vector<int> ErbWidths() {
  const float freqWidth = static_cast<float>(kSr) / kFft;
  const float lo = Freq2Erb(0.f), hi = Freq2Erb(kSr / 2.f);
  const float step = (hi - lo) / kErb;
  std::vector<int> erb(kErb);
  int prev = 0, over = 0;
  for (int i = 1; i <= kErb; ++i) {
    const int fb = static_cast<int>(std::lround(Erb2Freq(lo + i * step) / freqWidth));
    int nb = fb - prev - over;
    if (nb < kMinErbFreqs) {
      over = kMinErbFreqs - nb;
      nb = kMinErbFreqs;
    } else {
      over = 0;
    }
    erb[i - 1] = nb;
    prev = fb;
  }
  erb[kErb - 1] += 1;
  int sum = 0;
  for (int w : erb) sum += w;
  if (sum > kBins) erb[kErb - 1] -= sum - kBins;
  return erb;
}

float NormAlpha() {
  const float a0 = std::exp(-static_cast<float>(kHop) / kSr / kNormTau);
  float a = 1.f;
  for (int prec = 3; a >= 1.f; ++prec) {
    const float p = std::pow(10.f, static_cast<float>(prec));
    a = std::round(a0 * p) / p;
  }
  return a;
}

struct Tables {
  std::vector<float> window;
  std::vector<int> erb;
  float alpha;
  Tables() : window(kFft), erb(ErbWidths()), alpha(NormAlpha()) {
    for (int n = 0; n < kFft; ++n) {
      const double s = std::sin(M_PI * (n + 0.5) / kFft);
      window[n] = static_cast<float>(std::sin(M_PI / 2 * s * s));
    }
  }
};

const Tables& T() {
  static const Tables t;
  return t;
}

}  // namespace

struct Dfn3Model {
  Dfn3Settings settings;
  std::unique_ptr<Ort::Session> enc, erbDec, dfDec;
};

std::shared_ptr<Dfn3Model> LoadDfn3(const Dfn3Settings& s) {
  Ort::Env& env = SharedOrtEnv();
  auto model = std::make_shared<Dfn3Model>();
  model->settings = s;
  const Ort::SessionOptions options = OrtSessionOptions(s.intraOpThreads, 1, s.cuda);
  auto load = [&](const std::string& path) {
    try {
      return std::make_unique<Ort::Session>(env, path.c_str(), options);
    } catch (const Ort::Exception& e) {
      ThrowLoadFailure(e, s.cuda, "DeepFilterNet3 model " + path);
    }
  };
  model->enc = load(s.enc);
  model->erbDec = load(s.erbDec);
  model->dfDec = load(s.dfDec);
  return model;
}

// One channel. Frame t analyses input samples [t*hop - 480, t*hop + 480); its synthesis lags by 480.
class Dfn3Stream::Impl {
 public:
  explicit Impl(std::shared_ptr<Dfn3Model> model) : model_(std::move(model)), fft_(kFft) {
    analysisMem_.assign(kFft - kHop, 0.f);
    synthMem_.assign(kFft - kHop, 0.f);
    meanState_.resize(kErb);
    unitState_.resize(kDf);
    for (int i = 0; i < kErb; ++i) meanState_[i] = -60.f + (-90.f + 60.f) * i / (kErb - 1);
    for (int i = 0; i < kDf; ++i) unitState_[i] = 0.001f + (0.0001f - 0.001f) * i / (kDf - 1);
    toSkip_ = kFft - kHop;
  }

  std::vector<float> Process(const float* x, size_t n, bool flush) {
    std::vector<float> out;
    inTotal_ += n;
    size_t i = 0;
    while (i < n) {
      const size_t take = std::min<size_t>(kHop - fill_, n - i);
      std::memcpy(hop_ + fill_, x + i, take * sizeof(float));
      fill_ += static_cast<int>(take);
      i += take;
      if (fill_ == kHop) {
        Analyse();
        fill_ = 0;
      }
    }
    const int block = model_->settings.blockFrames;
    const int ahead = model_->settings.normalizeLevel ? kLevelReach + kLevelSmooth : 0;
    while (frameCount_ - nextOut_ >= block + kRight + ahead) {
      Featurize(frameCount_ - ahead);
      RunWindow(nextOut_ + block, out);
    }
    if (flush) {
      // Frames up to the one whose synthesis covers the last input sample.
      const int64_t needFrames = static_cast<int64_t>((inTotal_ + (kFft - kHop) + kHop - 1) / kHop);
      while (frameCount_ < needFrames) {
        std::fill(hop_ + fill_, hop_ + kHop, 0.f);
        Analyse();
        fill_ = 0;
      }
      Featurize(frameCount_);
      while (nextOut_ < frameCount_) RunWindow(std::min<int64_t>(frameCount_, nextOut_ + block), out);
    }
    return out;
  }

 private:
  // STFT of the pending hop and its features (appended to the frame buffers).
  void Analyse() {
    const Tables& t = T();
    float buf[kFft];
    cf spec[kBins];
    for (int k = 0; k < kFft - kHop; ++k) buf[k] = analysisMem_[k] * t.window[k];
    for (int k = 0; k < kHop; ++k) buf[kFft - kHop + k] = hop_[k] * t.window[kFft - kHop + k];
    std::copy(hop_, hop_ + kHop, analysisMem_.begin());  // 960 = 2 * 480
    fft_.Forward(buf, spec);
    const float wnorm = 1.f / (static_cast<float>(kFft) * kFft / (2.f * kHop));
    const size_t base = spec_.size();
    spec_.resize(base + kBins);
    for (int k = 0; k < kBins; ++k) spec_[base + k] = spec[k] * wnorm;
    float p = 0.f;
    for (int k = 0; k < kHop; ++k) p += hop_[k] * hop_[k];
    pow_.push_back(p / kHop);
    ++frameCount_;
  }

  // The gain that brings frame f's neighbourhood to the target level (1 without normalization).
  float LevelGain(int64_t f) const {
    if (!model_->settings.normalizeLevel) return 1.f;
    const int64_t lo = std::max(powStart_, f - kLevelReach - kLevelSmooth), hi = std::min(frameCount_, f + kLevelReach + kLevelSmooth + 1);
    // Running mean over 2*kLevelSmooth+1 frames, its maximum over the reach.
    const int w = 2 * kLevelSmooth + 1;
    double sum = 0, peak = 0;
    for (int64_t g = lo; g < hi; ++g) {
      sum += pow_[g - powStart_];
      if (g - lo >= w) sum -= pow_[g - w - powStart_];
      peak = std::max(peak, sum / std::min<int64_t>(w, g - lo + 1));
    }
    const double target = std::pow(10.0, model_->settings.levelDb / 10.0);
    return static_cast<float>(std::clamp(std::sqrt(target / std::max(peak, 1e-20)), double{kMinLevelGain}, double{kMaxLevelGain}));
  }

  // Features of frames [featCount_, limit): the spectrum scaled by the level gain (smoothed over ~100 ms).
  void Featurize(int64_t limit) {
    const Tables& t = T();
    for (; featCount_ < limit; ++featCount_) {
      const float lg = std::log(LevelGain(featCount_));
      logGain_ = featCount_ == 0 ? lg : logGain_ + 0.1f * (lg - logGain_);
      const float g = std::exp(logGain_), g2 = g * g;
      Featurize(&spec_[(featCount_ - bufStart_) * kBins], g, g2, t);
    }
    const int64_t keep = std::max(powStart_, featCount_ - kLevelReach - kLevelSmooth - 1);
    if (keep - powStart_ > 4096) {
      pow_.erase(pow_.begin(), pow_.begin() + (keep - powStart_));
      powStart_ = keep;
    }
  }

  void Featurize(const cf* X, float g, float g2, const Tables& t) {
    // ERB features: band mean power in dB, exponential mean normalization, / 40.
    size_t fb = featErb_.size();
    featErb_.resize(fb + kErb);
    int bin = 0;
    for (int b = 0; b < kErb; ++b) {
      const int w = t.erb[b];
      float p = 0.f;
      for (int j = 0; j < w; ++j, ++bin) p += std::norm(X[bin]);
      p = p * g2 / w;
      float db = 10.f * std::log10(p + 1e-10f);
      meanState_[b] = db * (1.f - t.alpha) + meanState_[b] * t.alpha;
      featErb_[fb + b] = (db - meanState_[b]) / 40.f;
    }
    // Complex features: lowest 96 bins over a running unit norm.
    fb = featSpec_.size();
    featSpec_.resize(fb + kDf);
    for (int k = 0; k < kDf; ++k) {
      const cf x = X[k] * g;
      unitState_[k] = std::abs(x) * (1.f - t.alpha) + unitState_[k] * t.alpha;
      featSpec_[fb + k] = x / std::sqrt(unitState_[k]);
    }
  }

  // Runs the models over frames [w0, min(end + kRight, frameCount_)), where w0
  // is up to contextFrames before nextOut_, and emits frames [nextOut_, end).
  void RunWindow(int64_t end, std::vector<float>& out) {
    const int64_t w0 = std::max<int64_t>(bufStart_, nextOut_ - model_->settings.contextFrames);
    const int64_t w1 = std::min<int64_t>(end + kRight, frameCount_);
    const int W = static_cast<int>(w1 - w0);
    const int64_t off = w0 - bufStart_;
    // Features shifted by conv_lookahead: index j holds frame w0 + j + 2 (zeros past the end).
    std::vector<float> erb(static_cast<size_t>(W) * kErb, 0.f);
    std::vector<float> spc(static_cast<size_t>(2) * W * kDf, 0.f);
    for (int j = 0; j < W; ++j) {
      const int64_t f = j + kConvLookahead;
      if (f >= W) break;
      std::memcpy(&erb[static_cast<size_t>(j) * kErb], &featErb_[(off + f) * kErb], kErb * sizeof(float));
      for (int k = 0; k < kDf; ++k) {
        const cf v = featSpec_[(off + f) * kDf + k];
        spc[static_cast<size_t>(j) * kDf + k] = v.real();
        spc[(static_cast<size_t>(W) + j) * kDf + k] = v.imag();
      }
    }
    Ort::MemoryInfo mem = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    const int64_t erbShape[] = {1, 1, W, kErb};
    const int64_t spcShape[] = {1, 2, W, kDf};
    Ort::Value encIn[] = {
        Ort::Value::CreateTensor<float>(mem, erb.data(), erb.size(), erbShape, 4),
        Ort::Value::CreateTensor<float>(mem, spc.data(), spc.size(), spcShape, 4)};
    const char* encInNames[] = {"feat_erb", "feat_spec"};
    const char* encOutNames[] = {"e0", "e1", "e2", "e3", "emb", "c0"};
    std::vector<Ort::Value> e;
    std::vector<Ort::Value> m, c;
    try {
      Ort::RunOptions ro;
      e = model_->enc->Run(ro, encInNames, encIn, 2, encOutNames, 6);
      const char* erbInNames[] = {"emb", "e3", "e2", "e1", "e0"};
      Ort::Value* erbIn[] = {&e[4], &e[3], &e[2], &e[1], &e[0]};
      std::vector<Ort::Value> erbInV;
      for (auto* v : erbIn) erbInV.push_back(Ort::Value(v->release()));
      const char* mName[] = {"m"};
      m = model_->erbDec->Run(ro, erbInNames, erbInV.data(), 5, mName, 1);
      // emb was moved into erbInV[0]; c0 is e[5].
      const char* dfInNames[] = {"emb", "c0"};
      Ort::Value dfIn[] = {std::move(erbInV[0]), std::move(e[5])};
      const char* cName[] = {"coefs"};
      c = model_->dfDec->Run(ro, dfInNames, dfIn, 2, cName, 1);
    } catch (const Ort::Exception& ex) {
      throw EngineFailure(ErrorCode::kOnnx, std::string("DeepFilterNet3: ") + ex.what());
    }
    const float* gains = m[0].GetTensorData<float>();  // [1,1,W,32]
    const float* coefs = c[0].GetTensorData<float>();  // [1,W,96,10]
    // Enhanced spectra of every frame the models ran on, [w0, w1): the guard reads them all.
    std::vector<cf> Y(static_cast<size_t>(W) * kBins);
    for (int j = 0; j < W; ++j) {
      Enhance(w0 + j, gains + static_cast<size_t>(j) * kErb, coefs + static_cast<size_t>(j) * kDf * kOrder * 2, &Y[static_cast<size_t>(j) * kBins]);
    }
    const float wet = WindowWet(Y, w0, W, static_cast<int>(end - nextOut_));
    if (!wetSet_) {
      prevWet_ = wet;
      wetSet_ = true;
    }
    for (int64_t fr = nextOut_; fr < end; ++fr) {
      cf* Yf = &Y[static_cast<size_t>(fr - w0) * kBins];
      const cf* X = &spec_[(fr - bufStart_) * kBins];
      // The wet fraction moves from the previous window's over kGuardRamp frames.
      const int64_t into = fr - nextOut_;
      const float w = into < kGuardRamp ? prevWet_ + (wet - prevWet_) * static_cast<float>(into + 1) / kGuardRamp : wet;
      if (w < 1.f) {
        for (int k = 0; k < kBins; ++k) Yf[k] = w * Yf[k] + (1.f - w) * X[k];
      }
      Synthesise(Yf, out);
    }
    prevWet_ = wet;
    nextOut_ = end;
    // Keep contextFrames of emitted frames (and the deep filter's past frames).
    const int64_t keepFrom = std::max<int64_t>(bufStart_, nextOut_ - std::max(model_->settings.contextFrames, kOrder));
    const int64_t drop = keepFrom - bufStart_;
    if (drop > 0) {
      spec_.erase(spec_.begin(), spec_.begin() + drop * kBins);
      featErb_.erase(featErb_.begin(), featErb_.begin() + drop * kErb);
      featSpec_.erase(featSpec_.begin(), featSpec_.begin() + drop * kDf);
      bufStart_ = keepFrom;
    }
  }

  // Frame fr enhanced: ERB gains g (piecewise constant over each band), the deep filter cj on
  // the lowest bins of the unmasked spectrum (frames fr-2 .. fr+2), then the optional post-filter.
  void Enhance(int64_t fr, const float* g, const float* cj, cf* Y) const {
    const Tables& t = T();
    const cf* X = &spec_[(fr - bufStart_) * kBins];
    int bin = 0;
    for (int b = 0; b < kErb; ++b) {
      for (int q = 0; q < t.erb[b]; ++q, ++bin) Y[bin] = X[bin] * g[b];
    }
    for (int k = 0; k < kDf; ++k) {
      cf acc = 0;
      for (int o = 0; o < kOrder; ++o) {
        const int64_t src = fr - (kOrder - 1 - kDfLookahead) + o;
        if (src < bufStart_ || src >= frameCount_) continue;
        const cf xs = spec_[(src - bufStart_) * kBins + k];
        acc += xs * cf(cj[k * kOrder * 2 + o * 2], cj[k * kOrder * 2 + o * 2 + 1]);
      }
      Y[k] = acc;
    }
    const float beta = model_->settings.postFilterBeta;
    if (beta > 0.f) {
      // DeepFilterNet's post_filter: pf = (1 + beta) / (1 + beta / sin^2(pi/2 * mask)), mask = |Y| / |X| in (eps, 1].
      constexpr float eps = 1e-12f;
      for (int k = 0; k < kBins; ++k) {
        const float mask = std::clamp(std::abs(Y[k]) / (std::abs(X[k]) + eps), eps, 1.f);
        const float sn = std::max(std::sin(static_cast<float>(M_PI) / 2 * mask), eps);
        Y[k] *= (1.f + beta) / (1.f + beta / (sn * sn));
      }
    }
  }

  // The wet fraction of frames [w0, w0 + W): the speech guard's times the high-SNR blend's (both as
  // Dfn3Settings describes them), from what the model removed, |X - Y|^2, kept, |Y|^2, and its masks |Y| / |X|.
  float WindowWet(const std::vector<cf>& Y, int64_t w0, int W, int newFrames) {
    const Dfn3Settings& s = model_->settings;
    if (!s.speechGuard && !s.snrBlend) return 1.f;
    if (W < kGuardMinFrames) return wetSet_ ? prevWet_ : 1.f;
    const Tables& t = T();
    std::vector<float> mods;
    std::vector<double> rem(W), inp(W), sm;
    double uSum = 0, wSum = 0, keptSum = 0, remSum = 0;
    int lo = 0;
    for (int b = 0; b < kErb; lo += t.erb[b], ++b) {
      const int hi = lo + t.erb[b];
      if (lo < kGuardLoBin || hi > kGuardHiBin) continue;
      double inMean = 0;
      for (int j = 0; j < W; ++j) {
        const cf* X = &spec_[(w0 + j - bufStart_) * kBins];
        const cf* Yj = &Y[static_cast<size_t>(j) * kBins];
        double r = 0, p = 0;
        for (int k = lo; k < hi; ++k) {
          const double px = std::norm(X[k]);
          r += std::norm(X[k] - Yj[k]);
          p += px;
          if (px > 0) {
            const double g = std::min(1.0, std::sqrt(std::norm(Yj[k]) / px));
            uSum += px * 4 * g * (1 - g);
            wSum += px;
          }
        }
        rem[j] = r;
        inp[j] = p;
        inMean += p / W;
      }
      // 50 ms power of the removed part, over frames where the input is not (near) digital silence.
      sm.clear();
      for (int j = 0; j < W; ++j) {
        if (inp[j] <= inMean * 1e-6) continue;
        double sum = 0;
        int n = 0;
        for (int i = std::max(0, j - 2); i <= std::min(W - 1, j + 2); ++i, ++n) sum += rem[i];
        sm.push_back(sum / n);
      }
      if (sm.size() < static_cast<size_t>(kGuardMinFrames)) continue;
      double mean = 0;
      for (double v : sm) mean += v / static_cast<double>(sm.size());
      if (!(mean > 1e-20)) continue;
      auto p10 = sm.begin() + static_cast<std::ptrdiff_t>(0.1 * static_cast<double>(sm.size() - 1));
      std::nth_element(sm.begin(), p10, sm.end());
      mods.push_back(static_cast<float>(10 * std::log10(mean / std::max(*p10, mean * 1e-4))));
    }
    // The high-SNR blend's energies over all bins: SI-SDR (and the ear) counts rumble below 100 Hz too.
    for (int j = 0; j < W; ++j) {
      const cf* X = &spec_[(w0 + j - bufStart_) * kBins];
      const cf* Yj = &Y[static_cast<size_t>(j) * kBins];
      for (int k = 0; k < kBins; ++k) {
        keptSum += std::norm(Yj[k]);
        remSum += std::norm(X[k] - Yj[k]);
      }
    }
    // The measures are running means over the windows so far (a window's new frames weighted,
    // earlier ones forgotten with a time constant of kGuardMemory frames): a short last window
    // does not decide alone.
    const double keep = std::exp(-static_cast<double>(newFrames) / kGuardMemory);
    auto ramp = [](double v, float a, float b) { return std::clamp(static_cast<float>((v - a) / std::max(b - a, 1e-6f)), 0.f, 1.f); };
    guard_.kept = guard_.kept * keep + keptSum / W * newFrames;
    guard_.removed = guard_.removed * keep + remSum / W * newFrames;
    if (!mods.empty() && wSum > 0) {
      auto mid = mods.begin() + static_cast<std::ptrdiff_t>(mods.size() / 2);
      std::nth_element(mods.begin(), mid, mods.end());
      guard_.mod = (guard_.mod * guard_.modWeight * keep + *mid * newFrames) / (guard_.modWeight * keep + newFrames);
      guard_.modWeight = guard_.modWeight * keep + newFrames;
      guard_.u = guard_.u * keep + uSum / W * newFrames;
      guard_.w = guard_.w * keep + wSum / W * newFrames;
    }
    // How speech-like the removed part is, 0-1.
    const float speech = guard_.w > 0 ? ramp(guard_.mod, s.guardLowDb, s.guardHighDb) * ramp(guard_.u / guard_.w, s.guardLowMask, s.guardHighMask) : 0.f;
    const float guardWet = s.speechGuard ? 1.f - speech * (1.f - s.guardWet) : 1.f;
    float dry = 0.f;  // the high-SNR blend's share of the input
    if (s.snrBlend && guard_.removed > 0) {
      // Kept over removed estimates the input's SNR; the nearer it comes to the model's own
      // distortion of the speech (snrBlendDb below it; snrBlendSpeechDb less where the removed
      // part is modulated like speech), the larger the input's share: (SNR / level)^2, at most 1.
      const double snrDb = 10 * std::log10(std::max(guard_.kept, 1e-30) / guard_.removed);
      const double levelDb = s.snrBlendDb - ramp(guard_.mod, s.guardLowDb, s.guardHighDb) * s.snrBlendSpeechDb;
      dry = static_cast<float>(std::min(1.0, std::pow(10.0, (snrDb - levelDb) / 5)));
    }
    return guardWet * (1.f - dry);
  }

  // Y: kBins bins of a Hermitian spectrum (the imaginary parts of DC and Nyquist are ignored).
  void Synthesise(const cf* Y, std::vector<float>& out) {
    const Tables& t = T();
    float y[kFft];
    fft_.Inverse(Y, y);
    float frame[kHop];
    for (int k = 0; k < kHop; ++k) frame[k] = y[k] * t.window[k] + synthMem_[k];
    for (int k = 0; k < kHop; ++k) synthMem_[k] = y[kHop + k] * t.window[kHop + k];
    int s = 0;
    if (toSkip_ > 0) {
      s = std::min(toSkip_, kHop);
      toSkip_ -= s;
    }
    for (int k = s; k < kHop && outTotal_ < inTotal_; ++k, ++outTotal_) out.push_back(frame[k]);
  }

  std::shared_ptr<Dfn3Model> model_;
  RealFft fft_;
  float hop_[kHop];
  int fill_ = 0;
  std::vector<float> analysisMem_, synthMem_, meanState_, unitState_;
  std::vector<cf> spec_, featSpec_;
  std::vector<float> featErb_;
  int64_t bufStart_ = 0, frameCount_ = 0, nextOut_ = 0, featCount_ = 0, powStart_ = 0;
  std::vector<float> pow_;  // mean square of each frame's new hop, frames [powStart_, frameCount_)
  float logGain_ = 0.f;
  float prevWet_ = 1.f;  // the speech guard's wet fraction of the last window
  bool wetSet_ = false;
  struct {
    double mod = 0, modWeight = 0, u = 0, w = 0, kept = 0, removed = 0;
  } guard_;  // the running measures of the guard and the high-SNR blend
  int toSkip_ = 0;
  uint64_t inTotal_ = 0, outTotal_ = 0;
};

Dfn3Stream::Dfn3Stream(std::shared_ptr<Dfn3Model> model) : impl_(std::make_unique<Impl>(std::move(model))) {}
Dfn3Stream::~Dfn3Stream() = default;
std::vector<float> Dfn3Stream::Process(const float* x, size_t n, bool flush) { return impl_->Process(x, n, flush); }

}  // namespace sawt
