// Streaming synthesis with the HTS engine (libHTSEngine 1.10, BSD) from
// full-context labels, one utterance (sentence) at a time.
//
// A small pool of worker threads per voice file, each with its own HTS_Engine
// loaded from that file, runs every job: concurrent requests do not wait behind
// one lock. A job's turn is either parameter generation for its next sentence
// (state + parameter sequences; the parameter streams are copied into the job,
// transformed there, and the engine is refreshed) or vocoding of one window of
// frames from those copies. Windows are vocoded on whichever engine is free,
// with a few warm-up frames and a short cross-fade so the restarted MLSA filter
// leaves no seam; the first window is short, so audio starts after a fraction
// of the sentence. The 48 kHz output gets a fixed gain and a soft limiter (no
// clipping), is resampled (band-limited) to the asked rate and handed to JS in
// chunks with the same credit/backpressure contract as createSynthesis.
#pragma once

#include <napi.h>

namespace sawt {

// JS: createHtsSynthesis(options, onEvent) -> { pause(), resume(), cancel() }
Napi::Value CreateHtsSynthesis(const Napi::CallbackInfo& info);
// JS: htsParameters(options) -> Promise<[{ frames, lf0, mgc, lpf, ... }]>
Napi::Value HtsParameters(const Napi::CallbackInfo& info);

}  // namespace sawt
