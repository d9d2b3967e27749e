// Streaming sample-rate converter on libsoxr (LGPL-2.1+; Debian's libsoxr-dev),
// with the interface and guarantees of Resampler (resampler.h): output sample k
// sits at input time k * inRate / outRate (soxr's output is delay-compensated,
// linear phase), and Flush() makes the total exactly
// ceil(inputCount * outRate / inRate). Quality: SOXR_HQ (20-bit; passband to
// 91.3 % of the lower Nyquist). Single-threaded. Not thread-safe: one instance
// per stream.
#pragma once

#include <soxr.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sawt {

class SoxrResampler {
 public:
  SoxrResampler(int inRate, int outRate);
  ~SoxrResampler();
  SoxrResampler(const SoxrResampler&) = delete;
  SoxrResampler& operator=(const SoxrResampler&) = delete;

  int inRate() const { return inRate_; }
  int outRate() const { return outRate_; }

  // Appends the output that `count` more input samples make ready to `out`.
  void Process(const int16_t* samples, size_t count, std::vector<int16_t>& out);
  // Appends the remaining output and resets the state for a new stream.
  void Flush(std::vector<int16_t>& out);
  void Reset();

 private:
  // Runs soxr on `count` samples of `in` (nullptr: end of input) and appends what it returns.
  void Run(const float* in, size_t count, std::vector<int16_t>& out);

  int inRate_, outRate_;
  int64_t up_, down_;  // outRate/inRate reduced
  soxr_t soxr_ = nullptr;
  std::vector<float> in_, buffer_;
  int64_t inputCount_ = 0;  // input samples since the last reset
  int64_t outputCount_ = 0;  // output samples since the last reset
};

}  // namespace sawt
