// Process-wide access to espeak-ng, which keeps global state and crashes when two threads call one
// copy at once: instance 0 is the linked library, each further one a private copy of its file (its own
// globals), so instances run in parallel. Every call to an instance takes its FIFO lock (syntheses
// taking turns per segment interleave in arrival order); an instance is initialized lazily under it,
// in AUDIO_OUTPUT_SYNCHRONOUS mode (audio reaches the sink on the calling thread, lock held).
// Any thread may call these (they block on the lock); none touches JavaScript.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sawt::espeak {

constexpr int kSampleRate = 22050;  // espeak-ng's fixed output rate
// The speaking rates (words per minute) synthesis uses (others are clamped into it); exported to JS as
// espeakRateRange, which a test keeps equal to native/lib/validate.ts's ESPEAK_RATE_RANGE.
constexpr int kMinRate = 80, kMaxRate = 450;

struct VoiceInfo {
  std::string name;
  std::vector<std::string> languages;
  std::string identifier;
};

struct SynthParams {
  std::string voice;  // espeak voice spec: "ar", "ar+m3", ...
  int rate = 175;  // words per minute, kMinRate..kMaxRate
  int pitch = 50;  // 0..100 (clamped)
  int range = 50;  // 0..100 (clamped)
  bool phonemeInput = false;  // honour [[...]] phoneme mnemonics in the text
};

// A word boundary reported by espeak during synthesis.
struct WordEvent {
  int textPosition;  // 1-based, in Unicode code points of the segment text
  int length;  // in code points
  int audioMs;  // ms since the start of this segment's audio
};

// Receives a segment's audio while the espeak lock is held. Must not block on
// anything that another synthesis could be waiting for (the lock is global).
class SynthSink {
 public:
  virtual ~SynthSink() = default;
  // `samples` (22050 Hz) is owned by espeak and valid only during the call.
  // Return false to make espeak stop this segment early.
  virtual bool OnAudio(const int16_t* samples, size_t count,
                       const std::vector<WordEvent>& words) = 0;
};

// Synthesis instances to use (1..8); takes effect while no instance has been loaded yet,
// later calls are ignored. Default 1. Returns the count in force. As many more instances
// serve the phonemizing calls alone (Phonemize, PhonemizeClauses, PhonemizeInputIpa).
int SetInstances(int count);
// The count in force (loads nothing).
int Instances();

// On the front end's own instance; throws EngineFailure (SAWT_ENGINE_ESPEAK), e.g. for an unknown
// voice. ipa = false gives espeak's own phoneme mnemonics, usable again inside [[ ]].
std::string Phonemize(const std::string& text, const std::string& voice, bool ipa = true);
// One clause of espeak_TextToPhonemes (IPA, no ties; phonememode 0x02, as Piper
// calls it) and the text it consumed, trimmed of white space and of espeak's
// one character of look-ahead (Piper's terminator is read from its end).
struct IpaClause {
  std::string phonemes;
  std::string consumed;
};
std::vector<IpaClause> PhonemizeClauses(const std::string& text, const std::string& voice);
// IPA of `text` that may hold [[mnemonics]] (which TextToPhonemes cannot read): espeak's phoneme
// trace of its synthesis, one line per clause, joined by a space.
std::string PhonemizeInputIpa(const std::string& text, const std::string& voice);
std::vector<VoiceInfo> ListVoices();
// On instance `instance` (0..Instances()-1); holds its lock for the whole segment.
// Returns false when the sink stopped it.
bool SynthesizeSegment(const SynthParams& params, const std::string& text, SynthSink& sink,
                       int instance = 0);

}  // namespace sawt::espeak
