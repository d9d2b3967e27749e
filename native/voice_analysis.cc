#include "voice_analysis.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <utility>

#include "fft.h"

namespace sawt {
namespace voice {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Power spectrum (kBins) of the frame of `x` starting at `start`, Hann window.
void PowerSpectrum(const float* x, size_t n, long start, int win, std::vector<double>& out) {
  static thread_local RealFft fft(kFftSize);
  static thread_local std::vector<float> buf(kFftSize);
  static thread_local std::vector<std::complex<float>> spectrum(kBins);
  std::fill(buf.begin(), buf.end(), 0.0f);
  for (int i = 0; i < win && i < kFftSize; ++i) {
    const long k = start + i;
    const double v = (k >= 0 && static_cast<size_t>(k) < n) ? x[k] : 0.0;
    buf[i] = static_cast<float>(v * (0.5 - 0.5 * std::cos(2 * kPi * i / (win - 1))));
  }
  fft.Forward(buf.data(), spectrum.data());
  out.resize(kBins);
  for (int i = 0; i < kBins; ++i) out[i] = std::norm(std::complex<double>(spectrum[i]));
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  const size_t k = std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1)));
  std::nth_element(v.begin(), v.begin() + k, v.end());
  return v[k];
}

// Frame energies (dB) at `hop`, 25 ms window.
std::vector<double> FrameEnergyDb(const float* x, size_t n, int sr, int hop) {
  const int win = sr / 40;
  const size_t frames = n / hop;
  std::vector<double> e(frames);
  for (size_t f = 0; f < frames; ++f) {
    const long c = static_cast<long>(f * hop + hop / 2);
    double s = 0;
    int cnt = 0;
    for (long k = c - win / 2; k < c + win / 2; ++k) {
      if (k >= 0 && static_cast<size_t>(k) < n) {
        s += static_cast<double>(x[k]) * x[k];
        ++cnt;
      }
    }
    e[f] = 10 * std::log10(s / std::max(1, cnt) + 1e-10);
  }
  return e;
}

std::vector<bool> Vad(const std::vector<double>& eDb) {
  const double noise = Percentile(eDb, 0.10);
  const double peak = Percentile(eDb, 0.99);
  const double thr = std::max({noise + 10.0, peak - 40.0, -75.0});
  std::vector<bool> speech(eDb.size());
  for (size_t i = 0; i < eDb.size(); ++i) speech[i] = eDb[i] > thr;
  return speech;
}

double HzToMel(double f) { return 2595 * std::log10(1 + f / 700); }
double MelToHz(double m) { return 700 * (std::pow(10, m / 2595) - 1); }

// Linear interpolation of a kBins curve at fractional bin b.
double AtBin(const std::vector<double>& v, double b) {
  if (b <= 0) return v[0];
  if (b >= kBins - 1) return v[kBins - 1];
  const int i = static_cast<int>(b);
  const double t = b - i;
  return v[i] * (1 - t) + v[i + 1] * t;
}

// Smooths a kBins dB curve over +-1/6 octave (a 1/3-octave moving average).
std::vector<double> SmoothOctave(const std::vector<double>& v, double fraction) {
  std::vector<double> prefix(kBins + 1, 0);
  for (int i = 0; i < kBins; ++i) prefix[i + 1] = prefix[i] + v[i];
  std::vector<double> out(kBins);
  const double r = std::pow(2.0, fraction / 2);
  for (int i = 0; i < kBins; ++i) {
    int lo = std::max(0, static_cast<int>(std::floor(i / r)));
    int hi = std::min(kBins - 1, static_cast<int>(std::ceil(i * r)));
    if (hi - lo < 2) {
      lo = std::max(0, i - 1);
      hi = std::min(kBins - 1, i + 1);
    }
    out[i] = (prefix[hi + 1] - prefix[lo]) / (hi - lo + 1);
  }
  return out;
}

void RemoveMean(std::vector<double>& v, int lo, int hi) {
  double s = 0;
  for (int i = lo; i <= hi; ++i) s += v[i];
  s /= (hi - lo + 1);
  for (double& x : v) x -= s;
}

// Levinson-Durbin: autocorrelation r[0..p] -> reflection k[0..p-1]; returns the error.
double Levinson(const std::vector<double>& r, int p, std::vector<double>& k, std::vector<double>& a) {
  a.assign(p + 1, 0.0);
  k.assign(p, 0.0);
  a[0] = 1;
  double err = r[0];
  if (err <= 0) return 0;
  std::vector<double> tmp(p + 1);
  for (int i = 1; i <= p; ++i) {
    double acc = r[i];
    for (int j = 1; j < i; ++j) acc += a[j] * r[i - j];
    const double ki = std::max(-0.999, std::min(0.999, -acc / err));
    k[i - 1] = ki;
    tmp = a;
    for (int j = 1; j < i; ++j) a[j] = tmp[j] + ki * tmp[i - j];
    a[i] = ki;
    err *= (1 - ki * ki);
  }
  return err;
}

}  // namespace

std::vector<double> TrackF0(const float* x, size_t n, int sr, int hop) {
  // YIN on a 2x-decimated copy (sr/2), 40 ms window, 60..450 Hz.
  const int ds = sr >= 32000 ? 4 : (sr >= 16000 ? 2 : 1);
  const int r = sr / ds;
  std::vector<float> y(n / ds);
  const int taps = 8 * ds + 1;
  std::vector<double> h(taps);
  double hs = 0;
  for (int i = 0; i < taps; ++i) {
    const double t = i - (taps - 1) / 2.0;
    const double fc = 0.45 / ds;
    const double s = t == 0 ? 2 * fc : std::sin(2 * kPi * fc * t) / (kPi * t);
    h[i] = s * (0.54 - 0.46 * std::cos(2 * kPi * i / (taps - 1)));
    hs += h[i];
  }
  for (size_t i = 0; i < y.size(); ++i) {
    double acc = 0;
    const long c = static_cast<long>(i * ds);
    for (int j = 0; j < taps; ++j) {
      const long k = c + j - (taps - 1) / 2;
      if (k >= 0 && static_cast<size_t>(k) < n) acc += h[j] * x[k];
    }
    y[i] = static_cast<float>(acc / hs);
  }
  const int win = r / 25;
  const int minLag = r / 450, maxLag = r / 60;
  const size_t frames = n / hop;
  std::vector<double> f0(frames, 0.0), dn(maxLag + 2);
  for (size_t f = 0; f < frames; ++f) {
    const long c = static_cast<long>((f * hop + hop / 2) / ds);
    const long start = c - (win + maxLag) / 2;
    if (start < 0 || static_cast<size_t>(start + win + maxLag) >= y.size()) continue;
    const float* s = y.data() + start;
    double energy = 0;
    for (int j = 0; j < win; ++j) energy += static_cast<double>(s[j]) * s[j];
    if (energy < 1e-7 * win) continue;
    double run = 0;
    dn[0] = 1;
    for (int tau = 1; tau <= maxLag; ++tau) {
      double acc = 0;
      for (int j = 0; j < win; ++j) {
        const double diff = s[j] - s[j + tau];
        acc += diff * diff;
      }
      run += acc;
      dn[tau] = run > 0 ? acc * tau / run : 1;
    }
    int best = -1;
    for (int tau = minLag; tau <= maxLag; ++tau) {
      if (dn[tau] < 0.15) {
        while (tau + 1 <= maxLag && dn[tau + 1] < dn[tau]) ++tau;
        best = tau;
        break;
      }
    }
    if (best < 0) {
      int m = minLag;
      for (int tau = minLag; tau <= maxLag; ++tau)
        if (dn[tau] < dn[m]) m = tau;
      if (dn[m] < 0.3) best = m;
    }
    if (best < 0) continue;
    double tau = best;
    if (best > minLag && best < maxLag) {
      const double a = dn[best - 1], b = dn[best], cc = dn[best + 1];
      const double den = a - 2 * b + cc;
      if (std::fabs(den) > 1e-12) tau += 0.5 * (a - cc) / den;
    }
    f0[f] = r / tau;
  }
  // Median of 3 to remove isolated octave jumps.
  std::vector<double> out(f0);
  for (size_t i = 1; i + 1 < frames; ++i) {
    if (f0[i] > 0 && f0[i - 1] > 0 && f0[i + 1] > 0) {
      double v[3] = {f0[i - 1], f0[i], f0[i + 1]};
      std::sort(v, v + 3);
      out[i] = v[1];
    }
  }
  return out;
}

Analysis Analyze(const float* x, size_t n, int sr) {
  Analysis a;
  a.sampleRate = sr;
  a.totalSeconds = static_cast<double>(n) / sr;
  const int hop = sr / 100;
  const std::vector<double> eDb = FrameEnergyDb(x, n, sr, hop);
  const std::vector<bool> speech = Vad(eDb);
  const std::vector<double> f0 = TrackF0(x, n, sr, hop);
  std::vector<double> logs;
  size_t speechFrames = 0;
  for (size_t i = 0; i < speech.size(); ++i) {
    if (!speech[i]) continue;
    ++speechFrames;
    if (i < f0.size() && f0[i] > 0) logs.push_back(std::log(f0[i]));
  }
  a.speechSeconds = speechFrames * hop / static_cast<double>(sr);
  a.voicedSeconds = logs.size() * hop / static_cast<double>(sr);
  if (!logs.empty()) {
    // Robust statistics: drop the outer 5% (octave errors).
    std::vector<double> s(logs);
    std::sort(s.begin(), s.end());
    const size_t lo = s.size() / 20, hi = s.size() - s.size() / 20;
    double sum = 0, sq = 0;
    for (size_t i = lo; i < hi; ++i) sum += s[i];
    const double m = sum / (hi - lo);
    for (size_t i = lo; i < hi; ++i) sq += (s[i] - m) * (s[i] - m);
    a.logF0Mean = m;
    a.logF0Std = std::sqrt(sq / (hi - lo));
    a.f0Median = std::exp(s[s.size() / 2]);
  }

  // LTAS and MFCCs over speech frames (25 ms window).
  const int win = std::min(kFftSize, sr / 40);
  const int nMel = 26;
  const double melLo = HzToMel(60), melHi = HzToMel(std::min(7600.0, sr / 2.0));
  std::vector<double> edges(nMel + 2);
  for (int i = 0; i < nMel + 2; ++i) edges[i] = MelToHz(melLo + (melHi - melLo) * i / (nMel + 1)) * kFftSize / sr;
  std::vector<double> ltas(kBins, 0.0), mfcc(kMfcc, 0.0), ps, mel(nMel);
  size_t used = 0;
  for (size_t f = 0; f < speech.size(); ++f) {
    if (!speech[f]) continue;
    PowerSpectrum(x, n, static_cast<long>(f * hop + hop / 2) - win / 2, win, ps);
    for (int i = 0; i < kBins; ++i) ltas[i] += ps[i];
    for (int m = 0; m < nMel; ++m) {
      double acc = 0;
      for (int b = static_cast<int>(std::ceil(edges[m])); b <= static_cast<int>(edges[m + 2]) && b < kBins; ++b) {
        const double w = b < edges[m + 1] ? (b - edges[m]) / (edges[m + 1] - edges[m]) : (edges[m + 2] - b) / (edges[m + 2] - edges[m + 1]);
        if (w > 0) acc += w * ps[b];
      }
      mel[m] = std::log(acc + 1e-10);
    }
    for (int c = 0; c < kMfcc; ++c) {
      double acc = 0;
      for (int m = 0; m < nMel; ++m) acc += mel[m] * std::cos(kPi * c * (m + 0.5) / nMel);
      mfcc[c] += acc * std::sqrt(2.0 / nMel);
    }
    ++used;
  }
  const int lo = static_cast<int>(100.0 * kFftSize / sr), hi = std::min(kBins - 1, static_cast<int>(7500.0 * kFftSize / sr));
  a.ltasDb.resize(kBins);
  for (int i = 0; i < kBins; ++i) a.ltasDb[i] = 10 * std::log10(ltas[i] / std::max<size_t>(1, used) + 1e-12);
  RemoveMean(a.ltasDb, lo, hi);
  for (int c = 1; c < kMfcc; ++c) a.mfccMean.push_back(mfcc[c] / std::max<size_t>(1, used));
  // Third-octave bands, 100 Hz .. 8 kHz.
  std::vector<double> bandPow;
  for (int b = -10; b <= 9; ++b) {
    const double fc = 1000 * std::pow(2.0, b / 3.0);
    const double f1 = fc / std::pow(2.0, 1 / 6.0), f2 = fc * std::pow(2.0, 1 / 6.0);
    if (f2 > sr / 2.0) break;
    double acc = 0;
    for (int i = static_cast<int>(std::ceil(f1 * kFftSize / sr)); i <= static_cast<int>(f2 * kFftSize / sr) && i < kBins; ++i) acc += ltas[i];
    a.bandCenters.push_back(fc);
    bandPow.push_back(10 * std::log10(acc / std::max<size_t>(1, used) + 1e-12));
  }
  double bm = 0;
  for (double v : bandPow) bm += v;
  bm /= std::max<size_t>(1, bandPow.size());
  for (double v : bandPow) a.bandsDb.push_back(v - bm);

  // Syllable nuclei: peaks of the smoothed energy envelope in speech, >= 100 ms apart,
  // rising >= 4 dB above the preceding dip.
  std::vector<double> env(eDb.size());
  for (size_t i = 0; i < eDb.size(); ++i) {
    double s = 0;
    int c = 0;
    for (long k = static_cast<long>(i) - 2; k <= static_cast<long>(i) + 2; ++k) {
      if (k >= 0 && static_cast<size_t>(k) < eDb.size()) {
        s += eDb[k];
        ++c;
      }
    }
    env[i] = s / c;
  }
  int peaks = 0;
  long lastPeak = -100;
  double dip = 1e9;
  for (size_t i = 1; i + 1 < env.size(); ++i) {
    dip = std::min(dip, env[i]);
    if (!speech[i]) continue;
    if (env[i] >= env[i - 1] && env[i] > env[i + 1] && env[i] - dip >= 4.0 && static_cast<long>(i) - lastPeak >= 10) {
      bool isMax = true;
      for (long k = static_cast<long>(i) - 5; k <= static_cast<long>(i) + 5; ++k) {
        if (k >= 0 && static_cast<size_t>(k) < env.size() && env[k] > env[i]) isMax = false;
      }
      if (isMax) {
        ++peaks;
        lastPeak = static_cast<long>(i);
        dip = env[i];
      }
    }
  }
  a.syllableRate = a.speechSeconds > 0 ? peaks / a.speechSeconds : 0;
  return a;
}

SpectralMatch MatchSpectra(const std::vector<double>& refIn, const std::vector<double>& baseIn, int sr) {
  SpectralMatch m;
  if (refIn.size() != kBins || baseIn.size() != kBins) return m;
  const std::vector<double> ref = SmoothOctave(refIn, 1.0 / 3);
  const std::vector<double> base = SmoothOctave(baseIn, 1.0 / 3);
  const int lo = static_cast<int>(300.0 * kFftSize / sr), hi = std::min(kBins - 1, static_cast<int>(5500.0 * kFftSize / sr));
  auto distance = [&](double w) {
    std::vector<double> diff;
    double mean = 0;
    for (int i = lo; i <= hi; ++i) {
      const double d = ref[i] - AtBin(base, i / w);
      diff.push_back(d);
      mean += d;
    }
    mean /= diff.size();
    double s = 0;
    for (double d : diff) s += (d - mean) * (d - mean);
    return std::sqrt(s / diff.size());
  };
  double best = 1, bestD = distance(1);
  m.distanceBefore = bestD;
  for (double w = 0.80; w <= 1.25001; w += 0.005) {
    const double d = distance(w);
    if (d < bestD - 1e-9) {
      bestD = d;
      best = w;
    }
  }
  m.warp = best;
  m.distanceAfter = bestD;
  const int eqLo = static_cast<int>(100.0 * kFftSize / sr), eqHi = std::min(kBins - 1, static_cast<int>(7500.0 * kFftSize / sr));
  std::vector<double> eq(kBins);
  for (int i = 0; i < kBins; ++i) eq[i] = ref[i] - AtBin(base, i / best);
  eq = SmoothOctave(eq, 1.0 / 3);
  RemoveMean(eq, eqLo, eqHi);
  for (int i = 0; i < kBins; ++i) {
    if (i < eqLo) eq[i] = eq[eqLo];
    eq[i] = std::max(-18.0, std::min(18.0, eq[i]));
  }
  m.eqDb = eq;
  return m;
}

std::vector<float> Convert(const float* xin, size_t n, int sr, const ConvertParams& p) {
  std::vector<float> out(n, 0.0f);
  if (n < static_cast<size_t>(sr / 20)) {
    std::copy(xin, xin + n, out.begin());
    return out;
  }
  const int order = sr >= 20000 ? 24 : 16;
  const int hop = sr / 200;  // 5 ms envelope frames
  const int win = sr / 40;  // 25 ms analysis window
  const int f0Hop = sr / 100;  // 10 ms F0 frames
  constexpr double kPre = 0.9;

  // Pre-emphasis.
  std::vector<double> x(n);
  x[0] = xin[0];
  for (size_t i = 1; i < n; ++i) x[i] = xin[i] - kPre * xin[i - 1];

  const std::vector<double> f0 = p.f0.empty() ? TrackF0(xin, n, sr, f0Hop) : p.f0;
  const size_t frames = (n + hop - 1) / hop;
  std::vector<std::vector<double>> kIn(frames), kOut(frames);
  std::vector<double> gain(frames, 1.0);

  // Envelope grid and EQ on it.
  constexpr int kGrid = 256;
  std::vector<double> eqLin(kGrid, 1.0);
  for (int g = 0; g < kGrid; ++g) {
    const double bin = (g + 0.5) / kGrid * (kBins - 1);
    if (p.eqDb.size() == kBins) eqLin[g] = std::pow(10.0, AtBin(p.eqDb, bin) / 10);
  }
  std::vector<double> hann(win);
  for (int i = 0; i < win; ++i) hann[i] = 0.5 - 0.5 * std::cos(2 * kPi * i / (win - 1));
  std::vector<double> r(order + 1), a, kk, env(kGrid), warped(kGrid), r2(order + 1), a2, k2;
  std::vector<double> cosTab(static_cast<size_t>(kGrid) * (order + 1));
  for (int g = 0; g < kGrid; ++g) {
    const double w = kPi * (g + 0.5) / kGrid;
    for (int l = 0; l <= order; ++l) cosTab[static_cast<size_t>(g) * (order + 1) + l] = std::cos(w * l);
  }
  auto envToAutocorr = [&](const std::vector<double>& e, std::vector<double>& rr) {
    for (int l = 0; l <= order; ++l) {
      double acc = 0;
      for (int g = 0; g < kGrid; ++g) acc += e[g] * cosTab[static_cast<size_t>(g) * (order + 1) + l];
      rr[l] = acc / kGrid;
    }
    rr[0] *= 1.0001;
  };
  for (size_t f = 0; f < frames; ++f) {
    const long c = static_cast<long>(f * hop + hop / 2);
    std::vector<double> seg(win);
    for (int i = 0; i < win; ++i) {
      const long k = c - win / 2 + i;
      seg[i] = (k >= 0 && static_cast<size_t>(k) < n ? x[k] : 0.0) * hann[i];
    }
    for (int l = 0; l <= order; ++l) {
      double acc = 0;
      for (int i = l; i < win; ++i) acc += seg[i] * seg[i - l];
      // Lag window (about 40 Hz Gaussian) for well-conditioned poles.
      const double lw = std::exp(-0.5 * std::pow(2 * kPi * 40.0 * l / sr, 2));
      r[l] = acc * lw;
    }
    r[0] = r[0] * 1.0001 + 1e-9;
    Levinson(r, order, kk, a);
    kIn[f] = kk;
    // Unit-gain envelope 1/|A|^2 on the grid, warped and equalized.
    for (int g = 0; g < kGrid; ++g) {
      const double w = kPi * (g + 0.5) / kGrid;
      double re = 0, im = 0;
      for (int l = 0; l <= order; ++l) {
        re += a[l] * std::cos(w * l);
        im -= a[l] * std::sin(w * l);
      }
      env[g] = 1.0 / std::max(1e-9, re * re + im * im);
    }
    for (int g = 0; g < kGrid; ++g) {
      const double src = (g + 0.5) / p.warp - 0.5;
      double v;
      if (src <= 0) {
        v = env[0];
      } else if (src >= kGrid - 1) {
        v = env[kGrid - 1];
      } else {
        const int i = static_cast<int>(src);
        const double t = src - i;
        v = std::exp(std::log(env[i]) * (1 - t) + std::log(env[i + 1]) * t);
      }
      warped[g] = v * eqLin[g];
    }
    envToAutocorr(env, r2);
    const double err0 = Levinson(r2, order, k2, a2);
    envToAutocorr(warped, r2);
    const double err1 = Levinson(r2, order, k2, a2);
    kOut[f] = k2;
    gain[f] = err0 > 0 ? std::sqrt(std::max(0.0, err1) / err0) : 1.0;
  }

  // Residual by the lattice analysis filter.
  std::vector<double> res(n), b(order + 1, 0.0), bn(order + 1);
  for (size_t i = 0; i < n; ++i) {
    const std::vector<double>& k = kIn[i / hop];
    double fwd = x[i];
    bn[0] = x[i];
    for (int j = 0; j < order; ++j) {
      const double fj = fwd + k[j] * b[j];
      bn[j + 1] = b[j] + k[j] * fwd;
      fwd = fj;
    }
    res[i] = fwd;
    std::swap(b, bn);
  }

  // Analysis pitch marks on the residual.
  struct Mark {
    long pos;
    int period;
    bool voiced;
  };
  std::vector<Mark> marks;
  const int uvStep = sr / 100;
  auto f0At = [&](long pos) {
    const size_t fi = static_cast<size_t>(pos / f0Hop);
    return fi < f0.size() ? f0[fi] : 0.0;
  };
  for (long t = 0; t < static_cast<long>(n);) {
    const double fz = f0At(t);
    if (fz > 0) {
      const int T = static_cast<int>(std::lround(sr / fz));
      // Within a voiced run, marks follow the tracked period exactly: picking residual
      // peaks jitters the grains against the evenly spaced synthesis marks, which left
      // most converted frames aperiodic. A run's first mark goes to the residual peak.
      long best = t;
      const bool continuing = !marks.empty() && marks.back().voiced;
      if (!continuing) {
        double bv = -1e300;
        const long lo = std::max<long>(0, t - T / 4), hi = std::min<long>(static_cast<long>(n) - 1, t + T / 4);
        for (long k = lo; k <= hi; ++k) {
          if (res[k] > bv) {
            bv = res[k];
            best = k;
          }
        }
      }
      if (!marks.empty() && best <= marks.back().pos) best = marks.back().pos + T / 2 + 1;
      marks.push_back({best, T, true});
      t = best + T;
    } else {
      marks.push_back({t, uvStep, false});
      t += uvStep;
    }
  }

  // TD-PSOLA: synthesis marks spaced by the mapped period.
  const double ratioStd = p.srcLogF0Std > 1e-4 ? p.dstLogF0Std / p.srcLogF0Std : 1.0;
  std::vector<double> exc(n, 0.0);
  size_t mi = 0;
  for (double s = marks.empty() ? static_cast<double>(n) : marks[0].pos; s < n;) {
    while (mi + 1 < marks.size() && std::fabs(marks[mi + 1].pos - s) <= std::fabs(marks[mi].pos - s)) ++mi;
    const Mark& m = marks[mi];
    double step;
    int half;
    if (m.voiced) {
      const double lf = std::log(static_cast<double>(sr) / m.period);
      const double target = p.dstLogF0Mean + (lf - p.srcLogF0Mean) * ratioStd;
      const double alpha = std::exp(std::max(-1.2, std::min(1.2, target - lf)));
      step = m.period / alpha;
      half = m.period;
    } else {
      step = m.period;
      half = m.period;
    }
    const long center = static_cast<long>(std::lround(s));
    for (int i = -half; i < half; ++i) {
      const long src = m.pos + i, dst = center + i;
      if (src < 0 || src >= static_cast<long>(n) || dst < 0 || dst >= static_cast<long>(n)) continue;
      const double w = 0.5 + 0.5 * std::cos(kPi * i / half);
      exc[dst] += res[src] * w;
    }
    s += std::max(16.0, step);
  }

  // Lattice synthesis with the warped envelope, then de-emphasis.
  std::fill(b.begin(), b.end(), 0.0);
  double prev = 0, inPow = 0, outPow = 0;
  std::vector<double> y(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t f = i / hop;
    const std::vector<double>& k = kOut[f];
    double fwd = exc[i] * gain[f];
    for (int j = order - 1; j >= 0; --j) {
      fwd -= k[j] * b[j];
      b[j + 1] = b[j] + k[j] * fwd;
    }
    b[0] = fwd;
    if (!std::isfinite(fwd)) {
      std::fill(b.begin(), b.end(), 0.0);
      fwd = 0;
    }
    prev = fwd + kPre * prev;
    y[i] = prev;
    inPow += static_cast<double>(xin[i]) * xin[i];
    outPow += prev * prev;
  }
  const double g = outPow > 0 ? std::sqrt(inPow / outPow) : 0.0;
  for (size_t i = 0; i < n; ++i) out[i] = static_cast<float>(y[i] * g);
  return out;
}

}  // namespace voice
}  // namespace sawt
