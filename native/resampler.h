// Streaming, band-limited sample-rate converter (Kaiser-windowed sinc,
// polyphase). Shared by the synthesis path and the JS `Resampler` class.
//
// Output sample k sits at input time k * inRate / outRate, computed with exact
// integer arithmetic, so feeding the input in any chunking gives exactly the
// same output as feeding it at once; Flush() zero-pads the tail and yields the
// last samples so that the total is ceil(inputCount * outRate / inRate).
// The anti-alias cutoff is 0.92 × min(inRate, outRate) / 2 (about 85 dB of
// stop-band attenuation). Not thread-safe: one instance per stream; its
// coefficient table is read-only and shared between instances of the same rates.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace sawt {

class Resampler {
 public:
  Resampler(int inRate, int outRate);

  int inRate() const { return inRate_; }
  int outRate() const { return outRate_; }

  // Appends the output that `count` more input samples make ready to `out`.
  void Process(const int16_t* samples, size_t count, std::vector<int16_t>& out);
  // Appends the remaining output and resets the state for a new stream.
  void Flush(std::vector<int16_t>& out);
  void Reset();

 private:
  void Emit(int64_t availableEnd, int64_t limit, std::vector<int16_t>& out);
  float Dot(const float* coefficients, const float* x) const;

  int inRate_, outRate_;
  int64_t up_, down_;  // outRate/inRate reduced: output k sits at input k*down/up
  int halfTaps_;  // taps each side of the centre
  int taps_;  // 2 * halfTaps_ + 1
  int phases_;  // rows of the table (== up_ when exact)
  bool exactPhases_;
  // (phases_ + 1) × taps_ filter coefficients; shared by the resamplers of the same pair of rates
  // (made once: ~0.5 ms of sin and Bessel terms, paid before on the main thread by every synthesis).
  std::shared_ptr<const std::vector<float>> table_;

  std::vector<float> history_;  // input from absolute index historyStart_ (may be < 0)
  int64_t historyStart_ = 0;
  int64_t inputCount_ = 0;  // input samples seen since the last reset
  int64_t nextOutput_ = 0;  // index k of the next output sample
};

}  // namespace sawt
