// Streaming sample-rate converter on libsoxr (LGPL-2.1+), SOXR_HQ (20-bit; passband flat to 91.3 % of
// the lower Nyquist, ~100 dB stop band; npm run bench:resampler measures it), linear phase. Output
// sample k sits at input time k * inRate / outRate; any chunking of the input gives the same output,
// and Flush() yields the tail: exactly ceil(inputCount * outRate / inRate) in all (soxr holds back a
// few hundred samples until then). Not thread-safe: one instance per stream.
#pragma once

#include <soxr.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sawt {

class Resampler {
 public:
  Resampler(int inRate, int outRate);
  ~Resampler();
  Resampler(const Resampler&) = delete;
  Resampler& operator=(const Resampler&) = delete;

  // Appends the output that `count` more input samples make ready to `out`.
  void Process(const int16_t* samples, size_t count, std::vector<int16_t>& out);
  // Appends the remaining output and resets the state for a new stream.
  void Flush(std::vector<int16_t>& out);
  void Reset();

 private:
  // Runs soxr on `count` samples of `in` (nullptr: end of input) and appends what it returns.
  void Run(const float* in, size_t count, std::vector<int16_t>& out);

  int64_t up_, down_;  // outRate/inRate reduced
  soxr_t soxr_ = nullptr;
  std::vector<float> in_, buffer_;
  int64_t inputCount_ = 0;  // input samples since the last reset
  int64_t outputCount_ = 0;  // output samples since the last reset
};

}  // namespace sawt
