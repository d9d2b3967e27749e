#include "encoders.h"

#include <FLAC/stream_encoder.h>
#include <lame/lame.h>
#include <opus/opusenc.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "resampler.h"

namespace sawt {
namespace {

void Append(std::vector<uint8_t>& out, const void* data, size_t n) {
  const uint8_t* p = static_cast<const uint8_t*>(data);
  out.insert(out.end(), p, p + n);
}

class PcmCodec : public Codec {
 public:
  void Push(const int16_t* s, size_t n, std::vector<uint8_t>& out) override {
    const size_t at = out.size();
    out.resize(at + n * 2);
    for (size_t i = 0; i < n; ++i) {  // little-endian whatever the host
      const uint16_t v = static_cast<uint16_t>(s[i]);
      out[at + 2 * i] = static_cast<uint8_t>(v & 0xff);
      out[at + 2 * i + 1] = static_cast<uint8_t>(v >> 8);
    }
  }
  void End(std::vector<uint8_t>&) override {}
};

// G.711 of one sample (ITU-T G.711, as in Sun's reference g711.c).
uint8_t LinearToUlaw(int16_t pcm) {
  // ITU-T G.711 μ-law: bias 0x84, clip 32635, 8 segments.
  constexpr int kBias = 0x84, kClip = 32635;
  int v = pcm;
  const int mask = v < 0 ? 0x7f : 0xff;
  if (v < 0) v = -v;
  if (v > kClip) v = kClip;
  v += kBias;
  int seg = 0;
  for (int t = v >> 7; t > 1 && seg < 7; t >>= 1) ++seg;
  const int uval = (seg << 4) | ((v >> (seg + 3)) & 0x0f);
  return static_cast<uint8_t>(uval ^ mask);
}

uint8_t LinearToAlaw(int16_t pcm) {
  // ITU-T G.711 A-law on the 13-bit magnitude; even bits inverted (0x55).
  int v = pcm >> 3;
  int mask;
  if (v >= 0) {
    mask = 0xd5;
  } else {
    mask = 0x55;
    v = -v - 1;
  }
  static const int kSegEnd[8] = {0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff};
  int seg = 0;
  while (seg < 8 && v > kSegEnd[seg]) ++seg;
  if (seg >= 8) return static_cast<uint8_t>(0x7f ^ mask);
  int aval = seg << 4;
  aval |= seg < 2 ? (v >> 1) & 0x0f : (v >> seg) & 0x0f;
  return static_cast<uint8_t>(aval ^ mask);
}

// G.711 through a 64 Ki table of the 16-bit input, built once from the standard's segments.
class G711Codec : public Codec {
 public:
  explicit G711Codec(bool ulaw) : table_(Table(ulaw)) {}
  void Push(const int16_t* s, size_t n, std::vector<uint8_t>& out) override {
    const size_t at = out.size();
    out.resize(at + n);
    for (size_t i = 0; i < n; ++i) out[at + i] = table_[static_cast<uint16_t>(s[i])];
  }
  void End(std::vector<uint8_t>&) override {}

 private:
  static const uint8_t* Table(bool ulaw) {
    static const std::vector<uint8_t> u = Build(LinearToUlaw), a = Build(LinearToAlaw);
    return ulaw ? u.data() : a.data();
  }
  static std::vector<uint8_t> Build(uint8_t (*f)(int16_t)) {
    std::vector<uint8_t> t(65536);
    for (int i = 0; i < 65536; ++i) t[i] = f(static_cast<int16_t>(static_cast<uint16_t>(i)));
    return t;
  }
  const uint8_t* table_;
};

class Mp3Codec : public Codec {
 public:
  Mp3Codec(int rate, int bitrate) : lame_(lame_init()) {
    if (!lame_) throw std::runtime_error("lame_init failed");
    lame_set_in_samplerate(lame_, rate);
    lame_set_out_samplerate(lame_, rate);
    lame_set_num_channels(lame_, 1);
    lame_set_mode(lame_, MONO);
    lame_set_brate(lame_, bitrate / 1000);
    lame_set_VBR(lame_, vbr_off);
    lame_set_quality(lame_, 5);
    lame_set_bWriteVbrTag(lame_, 0);  // a stream: no Xing header to rewrite at the end
    if (lame_init_params(lame_) < 0) {
      lame_close(lame_);
      throw std::runtime_error("lame_init_params failed");
    }
  }
  ~Mp3Codec() override { lame_close(lame_); }
  void Push(const int16_t* s, size_t n, std::vector<uint8_t>& out) override {
    while (n > 0) {
      const int take = static_cast<int>(std::min<size_t>(n, 1 << 16));
      buf_.resize(static_cast<size_t>(take) * 5 / 4 + 7200);
      const int got = lame_encode_buffer(lame_, s, s, take, buf_.data(), static_cast<int>(buf_.size()));
      if (got < 0) throw std::runtime_error("lame_encode_buffer failed");
      Append(out, buf_.data(), static_cast<size_t>(got));
      s += take;
      n -= static_cast<size_t>(take);
    }
  }
  void End(std::vector<uint8_t>& out) override { Flush(lame_encode_flush, "lame_encode_flush failed", out); }
  void Drain(std::vector<uint8_t>& out) override { Flush(lame_encode_flush_nogap, "lame_encode_flush_nogap failed", out); }

 private:
  void Flush(int (*flush)(lame_global_flags*, unsigned char*, int), const char* failure, std::vector<uint8_t>& out) {
    buf_.resize(7200);
    const int got = flush(lame_, buf_.data(), static_cast<int>(buf_.size()));
    if (got < 0) throw std::runtime_error(failure);
    Append(out, buf_.data(), static_cast<size_t>(got));
  }
  lame_global_flags* lame_;
  std::vector<unsigned char> buf_;
};

// Ogg Opus through libopusenc's pull API: every Push ends with the pages it completed
// flushed, so a stream's bytes so far are a valid Ogg Opus file (headers held back until
// the first audio page, so the first bytes out already play).
class OpusCodec : public Codec {
 public:
  OpusCodec(int rate, int bitrate) {
    comments_ = ope_comments_create();
    int err = 0;
    enc_ = ope_encoder_create_pull(comments_, rate, 1, 0, &err);
    if (!enc_) {
      ope_comments_destroy(comments_);
      throw std::runtime_error(std::string("ope_encoder_create_pull: ") + ope_strerror(err));
    }
    ope_encoder_ctl(enc_, OPUS_SET_BITRATE(bitrate));
    ope_encoder_ctl(enc_, OPUS_SET_APPLICATION(OPUS_APPLICATION_AUDIO));
    ope_encoder_ctl(enc_, OPE_SET_DECISION_DELAY(0));  // encode each 20 ms frame as soon as it is full
    ope_encoder_ctl(enc_, OPE_SET_COMMENT_PADDING(0));
    opus_int32 lookahead = 0;
    ope_encoder_ctl(enc_, OPUS_GET_LOOKAHEAD(&lookahead));
    lookahead_ = lookahead;
  }
  ~OpusCodec() override {
    ope_encoder_destroy(enc_);
    ope_comments_destroy(comments_);
  }
  void Push(const int16_t* s, size_t n, std::vector<uint8_t>& out) override {
    while (n > 0) {
      const int take = static_cast<int>(std::min<size_t>(n, 1 << 16));
      const int r = ope_encoder_write(enc_, s, take);
      if (r != OPE_OK) throw std::runtime_error(std::string("ope_encoder_write: ") + ope_strerror(r));
      s += take;
      n -= static_cast<size_t>(take);
      written_ += take;
    }
    TakePages(out);
  }
  void Drain(std::vector<uint8_t>& out) override {
    // Silence to the end of the frame that holds the last sample plus the encoder's lookahead.
    const int64_t frame = 960;
    int64_t pad = lookahead_ + (frame - (written_ + lookahead_) % frame) % frame;
    std::vector<int16_t> zeros(static_cast<size_t>(pad), 0);
    if (pad > 0) {
      const int r = ope_encoder_write(enc_, zeros.data(), static_cast<int>(pad));
      if (r != OPE_OK) throw std::runtime_error(std::string("ope_encoder_write: ") + ope_strerror(r));
      written_ += pad;
    }
    TakePages(out);
  }
  void End(std::vector<uint8_t>& out) override {
    const int r = ope_encoder_drain(enc_);
    if (r != OPE_OK) throw std::runtime_error(std::string("ope_encoder_drain: ") + ope_strerror(r));
    TakePages(out);
    Append(out, held_.data(), held_.size());
    held_.clear();
  }

 private:
  void TakePages(std::vector<uint8_t>& out) {
    unsigned char* page = nullptr;
    opus_int32 len = 0;
    while (ope_encoder_get_page(enc_, &page, &len, 1)) {
      if (!audio_) {
        // A page's granule position (bytes 6..13): 0 on the OpusHead and OpusTags pages.
        uint64_t granule = 0;
        for (int i = 7; i >= 0 && len >= 14; --i) granule = (granule << 8) | page[6 + i];
        Append(held_, page, static_cast<size_t>(len));
        if (granule != 0 && granule != ~0ULL) {
          audio_ = true;
          Append(out, held_.data(), held_.size());
          held_.clear();
          held_.shrink_to_fit();
        }
        continue;
      }
      Append(out, page, static_cast<size_t>(len));
    }
  }
  OggOpusComments* comments_ = nullptr;
  OggOpusEnc* enc_ = nullptr;
  bool audio_ = false;
  std::vector<uint8_t> held_;
  int64_t written_ = 0, lookahead_ = 0;
};

class FlacCodec : public Codec {
 public:
  explicit FlacCodec(int rate) : enc_(FLAC__stream_encoder_new()) {
    if (!enc_) throw std::runtime_error("FLAC__stream_encoder_new failed");
    FLAC__stream_encoder_set_channels(enc_, 1);
    FLAC__stream_encoder_set_bits_per_sample(enc_, 16);
    FLAC__stream_encoder_set_sample_rate(enc_, static_cast<unsigned>(rate));
    FLAC__stream_encoder_set_compression_level(enc_, 5);
    FLAC__stream_encoder_set_streamable_subset(enc_, true);
    FLAC__stream_encoder_set_verify(enc_, false);
    FLAC__stream_encoder_set_blocksize(enc_, kBlock);
    out_ = &pending_;
    const FLAC__StreamEncoderInitStatus st = FLAC__stream_encoder_init_stream(enc_, Write, nullptr, nullptr, nullptr, this);
    if (st != FLAC__STREAM_ENCODER_INIT_STATUS_OK) {
      FLAC__stream_encoder_delete(enc_);
      throw std::runtime_error(std::string("FLAC init: ") + FLAC__StreamEncoderInitStatusString[st]);
    }
  }
  ~FlacCodec() override { FLAC__stream_encoder_delete(enc_); }
  void Drain(std::vector<uint8_t>& out) override {
    const int64_t pad = (kBlock - written_ % kBlock) % kBlock;
    if (pad == 0) return;
    std::vector<int16_t> zeros(static_cast<size_t>(pad), 0);
    Push(zeros.data(), zeros.size(), out);
  }
  void Push(const int16_t* s, size_t n, std::vector<uint8_t>& out) override {
    TakePending(out);
    out_ = &out;
    wide_.resize(std::min<size_t>(n, 1 << 16));
    while (n > 0) {
      const size_t take = std::min<size_t>(n, wide_.size());
      for (size_t i = 0; i < take; ++i) wide_[i] = s[i];
      if (!FLAC__stream_encoder_process_interleaved(enc_, wide_.data(), static_cast<unsigned>(take))) throw std::runtime_error("FLAC encoding failed");
      s += take;
      n -= take;
      written_ += static_cast<int64_t>(take);
    }
    out_ = &pending_;
  }
  void End(std::vector<uint8_t>& out) override {
    TakePending(out);
    out_ = &out;
    FLAC__stream_encoder_finish(enc_);
    out_ = &pending_;
  }

 private:
  void TakePending(std::vector<uint8_t>& out) {
    Append(out, pending_.data(), pending_.size());
    pending_.clear();
  }
  static FLAC__StreamEncoderWriteStatus Write(const FLAC__StreamEncoder*, const FLAC__byte buffer[], size_t bytes, uint32_t, uint32_t, void* self) {
    Append(*static_cast<FlacCodec*>(self)->out_, buffer, bytes);
    return FLAC__STREAM_ENCODER_WRITE_STATUS_OK;
  }
  FLAC__StreamEncoder* enc_;
  std::vector<uint8_t> pending_;  // the stream header written at init
  std::vector<uint8_t>* out_;
  std::vector<FLAC__int32> wide_;
  int64_t written_ = 0;
  static constexpr unsigned kBlock = 1152;  // short blocks: a drain pads at most 1151 samples of silence
};

}  // namespace

std::unique_ptr<Codec> MakeCodec(const std::string& codec, int rate, int bitrate) {
  if (codec == "pcm") return std::make_unique<PcmCodec>();
  if (codec == "ulaw" || codec == "alaw") return std::make_unique<G711Codec>(codec == "ulaw");
  if (codec == "mp3") return std::make_unique<Mp3Codec>(rate, bitrate);
  if (codec == "opus") return std::make_unique<OpusCodec>(rate, bitrate);
  if (codec == "flac") return std::make_unique<FlacCodec>(rate);
  throw std::invalid_argument("unknown codec: " + codec);
}

Encoder::Encoder(const std::string& codec, int inRate, int outRate, int bitrate) : codec_(MakeCodec(codec, outRate, bitrate)) {
  if (inRate != outRate) resampler_ = std::make_unique<Resampler>(inRate, outRate);
}

Encoder::~Encoder() = default;

void Encoder::Push(const int16_t* samples, size_t count, std::vector<uint8_t>& out) {
  if (ended_) throw std::logic_error("encoder already ended");
  if (!resampler_) {
    codec_->Push(samples, count, out);
    return;
  }
  scratch_.clear();
  resampler_->Process(samples, count, scratch_);
  codec_->Push(scratch_.data(), scratch_.size(), out);
}

void Encoder::FlushResampler(std::vector<uint8_t>& out) {
  if (!resampler_) return;
  scratch_.clear();
  resampler_->Flush(scratch_);
  if (!scratch_.empty()) codec_->Push(scratch_.data(), scratch_.size(), out);
}

void Encoder::Drain(std::vector<uint8_t>& out) {
  if (ended_) throw std::logic_error("encoder already ended");
  FlushResampler(out);
  codec_->Drain(out);
}

void Encoder::End(std::vector<uint8_t>& out) {
  if (ended_) return;
  ended_ = true;
  FlushResampler(out);
  std::vector<int16_t>().swap(scratch_);
  codec_->End(out);
}

}  // namespace sawt
