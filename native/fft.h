// The addon's one FFT: KISS FFT's real transforms (libkissfft-float, BSD-3-Clause;
// Debian's libkissfft-dev). An instance holds scratch memory: one transform at a
// time per instance (one per stream, or thread_local).
#pragma once

#include <kiss_fftr.h>

#include <complex>
#include <stdexcept>
#include <string>

namespace sawt {

class RealFft {
 public:
  // n: the transform size (even).
  explicit RealFft(int n) : n_(n), forward_(kiss_fftr_alloc(n, 0, nullptr, nullptr)), inverse_(kiss_fftr_alloc(n, 1, nullptr, nullptr)) {
    if (!forward_ || !inverse_) {
      Free();
      throw std::runtime_error("KISS FFT cannot make a real transform of size " + std::to_string(n));
    }
  }
  ~RealFft() { Free(); }
  RealFft(const RealFft&) = delete;
  RealFft& operator=(const RealFft&) = delete;

  int size() const { return n_; }

  // out[0 .. n/2] = DFT of the n real samples of `in` (e^{-i}, unnormalized).
  void Forward(const float* in, std::complex<float>* out) { kiss_fftr(forward_, in, reinterpret_cast<kiss_fft_cpx*>(out)); }

  // out = the n real samples of the unnormalized inverse DFT of the Hermitian spectrum whose bins
  // 0 .. n/2 are `in` (the imaginary parts of bins 0 and n/2 are ignored).
  void Inverse(const std::complex<float>* in, float* out) { kiss_fftri(inverse_, reinterpret_cast<const kiss_fft_cpx*>(in), out); }

 private:
  void Free() {
    kiss_fftr_free(forward_);
    kiss_fftr_free(inverse_);
  }

  int n_;
  kiss_fftr_cfg forward_, inverse_;
};

static_assert(sizeof(std::complex<float>) == sizeof(kiss_fft_cpx), "std::complex<float> and kiss_fft_cpx share a layout");

}  // namespace sawt
