#include "resampler.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

namespace sawt {

Resampler::Resampler(int inRate, int outRate) {
  const int64_t g = std::gcd<int64_t>(inRate, outRate);
  up_ = outRate / g;
  down_ = inRate / g;
  const soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
  const soxr_quality_spec_t quality = soxr_quality_spec(SOXR_HQ, 0);
  const soxr_runtime_spec_t runtime = soxr_runtime_spec(1);
  soxr_error_t error = nullptr;
  soxr_ = soxr_create(inRate, outRate, 1, &error, &io, &quality, &runtime);
  if (error) throw std::runtime_error(std::string("soxr: ") + error);
  buffer_.resize(4096);
}

Resampler::~Resampler() { soxr_delete(soxr_); }

void Resampler::Reset() {
  soxr_clear(soxr_);
  inputCount_ = 0;
  outputCount_ = 0;
}

void Resampler::Run(const float* in, size_t count, std::vector<int16_t>& out) {
  size_t consumed = 0;
  for (;;) {
    size_t idone = 0, odone = 0;
    const soxr_error_t error = soxr_process(soxr_, in ? in + consumed : nullptr, in ? count - consumed : 0, &idone,
                                            buffer_.data(), buffer_.size(), &odone);
    if (error) throw std::runtime_error(std::string("soxr: ") + error);
    consumed += idone;
    for (size_t i = 0; i < odone; ++i) {
      const float rounded = std::nearbyint(buffer_[i] * 32768.0f);
      out.push_back(static_cast<int16_t>(std::clamp(rounded, -32768.0f, 32767.0f)));
    }
    outputCount_ += static_cast<int64_t>(odone);
    // Done when the input is taken and soxr has nothing more to give for now.
    if ((in ? consumed == count : true) && odone < buffer_.size()) break;
  }
}

void Resampler::Process(const int16_t* samples, size_t count, std::vector<int16_t>& out) {
  if (count == 0) return;
  if (up_ == down_) {  // same rate: nothing to filter
    out.insert(out.end(), samples, samples + count);
    return;
  }
  in_.resize(count);
  for (size_t i = 0; i < count; ++i) in_[i] = samples[i] / 32768.0f;
  inputCount_ += static_cast<int64_t>(count);
  const size_t before = out.size();
  Run(in_.data(), count, out);
  // Never more than the stream's total (soxr may round its own total up).
  const int64_t total = (inputCount_ * up_ + down_ - 1) / down_;
  if (outputCount_ > total) {
    out.resize(out.size() - static_cast<size_t>(std::min<int64_t>(outputCount_ - total, out.size() - before)));
    outputCount_ = total;
  }
}

void Resampler::Flush(std::vector<int16_t>& out) {
  if (up_ != down_ && inputCount_ > 0) {
    const int64_t total = (inputCount_ * up_ + down_ - 1) / down_;
    const size_t before = out.size();
    const int64_t already = outputCount_;
    Run(nullptr, 0, out);
    // Exactly `total` in all: trim soxr's rounding, or pad its last sample's shortfall with silence.
    const int64_t made = already + static_cast<int64_t>(out.size() - before);
    if (made > total) {
      out.resize(out.size() - static_cast<size_t>(made - total));
    } else if (made < total) {
      out.insert(out.end(), static_cast<size_t>(total - made), 0);
    }
  }
  Reset();
}

}  // namespace sawt
