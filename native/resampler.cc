#include "resampler.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <utility>
#include <vector>

namespace sawt {
namespace {

constexpr double kRolloff = 0.92;  // cutoff as a fraction of the lower Nyquist
constexpr double kKaiserBeta = 8.6;  // ~85 dB stop band
constexpr double kZeroCrossings = 16.0;  // sinc zero crossings each side at the cutoff
constexpr int64_t kMaxExactPhases = 1024;  // beyond: interpolate between table rows

double BesselI0(double x) {
  double sum = 1.0, term = 1.0;
  for (int k = 1; k < 64; ++k) {
    term *= (x / (2.0 * k)) * (x / (2.0 * k));
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return sum;
}

// The coefficient table of a pair of rates (a pure function of them), made on first use and kept:
// the process uses a handful of pairs (voice rates × output rates). Past kMaxSharedTables pairs
// (arbitrary rates of uploaded audio), a table is made for its resampler alone.
constexpr size_t kMaxSharedTables = 64;

template <typename Make>
std::shared_ptr<const std::vector<float>> SharedTable(int inRate, int outRate, Make make) {
  static std::mutex mutex;
  static auto* tables = new std::map<std::pair<int, int>, std::shared_ptr<const std::vector<float>>>();
  const std::pair<int, int> key(inRate, outRate);
  {
    std::lock_guard<std::mutex> guard(mutex);
    const auto found = tables->find(key);
    if (found != tables->end()) return found->second;
  }
  std::shared_ptr<const std::vector<float>> table = make();  // outside the lock: other pairs need not wait
  std::lock_guard<std::mutex> guard(mutex);
  if (tables->size() >= kMaxSharedTables) return table;
  return tables->emplace(key, std::move(table)).first->second;  // a concurrent maker's table wins
}

}  // namespace

Resampler::Resampler(int inRate, int outRate) : inRate_(inRate), outRate_(outRate) {
  const int64_t g = std::gcd<int64_t>(inRate, outRate);
  up_ = outRate / g;
  down_ = inRate / g;
  // Cutoff in cycles per input sample.
  const double cutoff = 0.5 * kRolloff * std::min(1.0, static_cast<double>(outRate) / inRate);
  const double halfWidth = kZeroCrossings / (2.0 * cutoff);  // in input samples
  halfTaps_ = static_cast<int>(std::ceil(halfWidth));
  taps_ = 2 * halfTaps_ + 1;
  exactPhases_ = up_ <= kMaxExactPhases;
  phases_ = static_cast<int>(exactPhases_ ? up_ : kMaxExactPhases);

  table_ = SharedTable(inRate, outRate, [&] {
    // Row p holds h(f + halfTaps - i) for fractional position f = p / phases_;
    // one extra row (f = 1) lets the interpolated case read row p + 1.
    auto table = std::make_shared<std::vector<float>>(static_cast<size_t>(phases_ + 1) * taps_);
    const double i0Beta = BesselI0(kKaiserBeta);
    for (int p = 0; p <= phases_; ++p) {
      const double f = static_cast<double>(p) / phases_;
      for (int i = 0; i < taps_; ++i) {
        const double t = f + halfTaps_ - i;
        const double x = 2.0 * cutoff * t;
        const double sinc = x == 0.0 ? 1.0 : std::sin(M_PI * x) / (M_PI * x);
        const double r = t / halfWidth;
        const double window = std::abs(r) >= 1.0 ? 0.0 : BesselI0(kKaiserBeta * std::sqrt(1.0 - r * r)) / i0Beta;
        (*table)[static_cast<size_t>(p) * taps_ + i] = static_cast<float>(2.0 * cutoff * sinc * window);
      }
    }
    return table;
  });
  Reset();
}

void Resampler::Reset() {
  // Zeros before the first sample stand for the silence the stream starts from.
  history_.assign(static_cast<size_t>(halfTaps_), 0.0f);
  historyStart_ = -halfTaps_;
  inputCount_ = 0;
  nextOutput_ = 0;
}

void Resampler::Process(const int16_t* samples, size_t count, std::vector<int16_t>& out) {
  if (count == 0) return;
  if (up_ == down_) {  // same rate: nothing to filter
    out.insert(out.end(), samples, samples + count);
    return;
  }
  history_.insert(history_.end(), samples, samples + count);
  inputCount_ += static_cast<int64_t>(count);
  Emit(inputCount_, INT64_MAX, out);
}

void Resampler::Flush(std::vector<int16_t>& out) {
  const int64_t total = (inputCount_ * up_ + down_ - 1) / down_;
  if (total > nextOutput_) {
    // The last output needs input up to its centre + halfTaps: pad with zeros.
    const int64_t lastCentre = ((total - 1) * down_) / up_;
    const int64_t end = lastCentre + halfTaps_ + 1;
    if (end - historyStart_ > static_cast<int64_t>(history_.size())) {
      history_.resize(static_cast<size_t>(end - historyStart_), 0.0f);
    }
    Emit(end, total, out);
  }
  Reset();
}

// Emits outputs [nextOutput_, limit) whose taps all lie below `availableEnd`
// (an absolute input index), then drops input no later output needs.
void Resampler::Emit(int64_t availableEnd, int64_t limit, std::vector<int16_t>& out) {
  while (nextOutput_ < limit) {
    const int64_t position = nextOutput_ * down_;  // in units of 1/up_ input samples
    const int64_t centre = position / up_;
    if (centre + halfTaps_ >= availableEnd) break;
    const float* x = history_.data() + (centre - halfTaps_ - historyStart_);
    const int64_t fraction = position % up_;
    float acc;
    if (exactPhases_) {
      acc = Dot(&(*table_)[static_cast<size_t>(fraction) * taps_], x);
    } else {
      const double row = static_cast<double>(fraction) * phases_ / up_;
      const int r = static_cast<int>(row);
      const float t = static_cast<float>(row - r);
      const float a = Dot(&(*table_)[static_cast<size_t>(r) * taps_], x);
      const float b = Dot(&(*table_)[static_cast<size_t>(r + 1) * taps_], x);
      acc = a + t * (b - a);
    }
    const float rounded = std::nearbyint(acc);
    out.push_back(static_cast<int16_t>(std::clamp(rounded, -32768.0f, 32767.0f)));
    ++nextOutput_;
  }
  const int64_t needed = (nextOutput_ * down_) / up_ - halfTaps_;  // first input still needed
  const int64_t drop = needed - historyStart_;
  if (drop > 4096 && drop * 2 > static_cast<int64_t>(history_.size())) {
    history_.erase(history_.begin(), history_.begin() + drop);
    historyStart_ = needed;
  }
}

float Resampler::Dot(const float* coefficients, const float* x) const {
  float acc = 0.0f;
  for (int i = 0; i < taps_; ++i) acc += coefficients[i] * x[i];
  return acc;
}

}  // namespace sawt
