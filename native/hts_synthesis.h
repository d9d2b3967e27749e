// Streaming synthesis with the HTS engine (libHTSEngine 1.10, BSD) from full-context labels, one
// utterance (sentence) at a time, on a PriorityPool per voice file (pools::Hts) whose threads each load
// an HTS_Engine of their own (no request waits behind one lock). A job's turn either generates its next
// sentence's parameter streams (copied into the job) or vocodes one window of them on whichever engine
// is free: warm-up frames and a cross-fade hide the restarted MLSA filter, and the first window is short
// (and urgent), so audio starts early. The output gets a gain and a soft limiter, is resampled to the
// asked rate and sent in chunks as createSynthesis's. Memory: the job owns copies of its options and
// streams (made on the JavaScript thread before it starts); chunks as in synthesis.h. No Node-API here.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "chunk_stream.h"

namespace sawt {

constexpr double kHtsNoData = -1.0e10;  // HTS_NODATA: an unvoiced log-F0 frame
constexpr const char* kHtsStreamNames[] = {"mgc", "lf0", "lpf"};  // the voice's streams, in its order
constexpr size_t kHtsMaxStreams = 3;

struct HtsControls {
  double speed = 1.0;
  double halfTone = 0.0;  // additive, on the generated log F0
  double f0Spread = 1.0;  // scale of log F0 around its utterance mean
  double alpha = -1.0;  // all-pass constant; < 0: the voice's own
  double gvLf0 = 1.0, gvMgc = 1.0;
  double gainDb = -6.0;
  double postfilter = 0.0;  // mel-cepstral postfilter coefficient (HTS beta): sharper formants; 0: none
  double highpassHz = 0.0;  // corner of a 2nd-order high-pass on the vocoded output (the pulse train's DC); 0: none
  std::vector<double> mgcOffset;  // added to every generated mel-cepstrum frame (a smooth EQ); empty: none
};

// The generated (or caller-given) streams of one utterance, owned outside the engine.
struct HtsParams {
  size_t frames = 0;
  std::vector<size_t> dims;  // per stream (MCP, LF0, LPF)
  std::vector<std::vector<double>> data;  // per stream: frames × dim (LF0: kHtsNoData when unvoiced)
  std::vector<size_t> labelFrames;  // from labels: the frame each label (phone) starts at; empty for given streams
};

// A word of an utterance as the caller gave it: the label of its first phone, and its place in the text.
struct HtsWordSpec {
  size_t label;
  double textOffset, length;  // UTF-16 code units, passed through
};

struct HtsJobOptions {
  std::string voicePath;
  std::vector<std::vector<std::string>> utterances;
  std::vector<HtsParams> parameters;  // instead of utterances: streams to vocode as they are (no Generate)
  std::vector<std::vector<HtsWordSpec>> words;  // per utterance, or empty: no word timings
  std::vector<std::vector<size_t>> closures;  // per utterance: labels given a voiced closure, or empty: none
  HtsControls controls;
  int sampleRate = 24000;
  int maxQueuedChunks = 4;
  int chunkMs = 200;
  int threads = 2;
  int firstWindowFrames = 80;  // 0.4 s at 5 ms frames
  int windowFrames = 600;  // 3 s
  bool urgent = true;  // the turns up to the first window go ahead of other jobs' later turns
  bool background = false;  // work nobody waits to hear (a long-form job's part): the voice's background pool
};

// A streaming job over `options` (its events are opened by ChunkStream::Start).
std::shared_ptr<ChunkStream> MakeHtsJob(HtsJobOptions options);

// The parameter streams of every utterance of `options` (labels, controls, closures), generated on the
// voice's pool; blocks the calling thread (not one of the pool's). Throws EngineFailure.
struct HtsGenerated {
  std::vector<HtsParams> params;
  size_t sampleRate = 48000, fperiod = 240;
};
HtsGenerated GenerateHtsParameters(const HtsJobOptions& options);

}  // namespace sawt
