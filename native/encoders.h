// Audio encoders of the output formats (issue 31): PCM16 LE, G.711 μ-law and A-law, MP3 (libmp3lame),
// Ogg Opus (libopusenc) and FLAC (libFLAC), behind an optional Resampler. One Encoder per output
// stream; each codec keeps at most a frame or a page of state. Not thread-safe: one caller at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace sawt {

class Codec {
 public:
  virtual ~Codec() = default;
  virtual void Push(const int16_t* samples, size_t count, std::vector<uint8_t>& out) = 0;
  virtual void End(std::vector<uint8_t>& out) = 0;
  // Emits what the codec holds back without ending the stream (a pause: the WebSocket's flush);
  // codecs that work in frames complete the current one with silence.
  virtual void Drain(std::vector<uint8_t>& out) {}
};

class Resampler;

class Encoder {
 public:
  // codec: "pcm", "ulaw", "alaw", "mp3", "opus", "flac"; bitrate in bit/s (mp3, opus).
  Encoder(const std::string& codec, int inRate, int outRate, int bitrate);
  ~Encoder();
  Encoder(const Encoder&) = delete;
  Encoder& operator=(const Encoder&) = delete;

  void Push(const int16_t* samples, size_t count, std::vector<uint8_t>& out);
  void End(std::vector<uint8_t>& out);
  // Emits everything pushed so far, the stream continuing (Codec::Drain; the resampler's tail).
  void Drain(std::vector<uint8_t>& out);

 private:
  void FlushResampler(std::vector<uint8_t>& out);  // the resampler's tail to the codec

  std::unique_ptr<Resampler> resampler_;
  std::unique_ptr<Codec> codec_;
  std::vector<int16_t> scratch_;
  bool ended_ = false;
};

}  // namespace sawt
