#include "espeak_engine.h"

#include <espeak-ng/speak_lib.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <utility>

#include "errors.h"

namespace sawt::espeak {
namespace {

// std::mutex lets a thread that just unlocked take the lock straight back,
// which starves the other syntheses; tickets hand it out in arrival order.
class FifoLock {
 public:
  void lock() {
    std::unique_lock<std::mutex> guard(mutex_);
    const uint64_t ticket = nextTicket_++;
    turn_.wait(guard, [&] { return serving_ == ticket; });
  }
  void unlock() {
    {
      std::lock_guard<std::mutex> guard(mutex_);
      ++serving_;
    }
    turn_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable turn_;
  uint64_t nextTicket_ = 0;
  uint64_t serving_ = 0;
};

FifoLock gLock;
// Guarded by gLock.
bool gInitialized = false;
std::string gCurrentVoice;      // last voice spec set successfully
SynthSink* gSink = nullptr;     // sink of the espeak_Synth call in progress
bool gSinkStopped = false;
std::exception_ptr gSinkError;  // thrown by the sink; must not unwind through C

int OnSynth(short* wav, int count, espeak_EVENT* events) {
  if (gSink == nullptr) return 0;
  thread_local std::vector<WordEvent> words;
  words.clear();
  for (espeak_EVENT* e = events; e != nullptr && e->type != espeakEVENT_LIST_TERMINATED; ++e) {
    if (e->type == espeakEVENT_WORD) {
      words.push_back(WordEvent{e->text_position, e->length, e->audio_position});
    }
  }
  if (count <= 0 && words.empty()) return 0;
  try {
    if (gSink->OnAudio(reinterpret_cast<const int16_t*>(wav), wav ? static_cast<size_t>(count) : 0,
                       words)) {
      return 0;
    }
  } catch (...) {
    gSinkError = std::current_exception();
  }
  gSinkStopped = true;
  return 1;  // abort synthesis of this segment
}

// Caller holds gLock.
void EnsureInitialized() {
  if (gInitialized) return;
  const int rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nullptr,
                                     espeakINITIALIZE_DONT_EXIT);
  if (rate != kSampleRate) {
    throw EngineFailure(ErrorCode::kEspeak,
                        rate < 0 ? "espeak-ng failed to initialize (is espeak-ng-data installed?)"
                                 : "espeak-ng reported an unexpected sample rate " +
                                       std::to_string(rate));
  }
  espeak_SetSynthCallback(OnSynth);
  gInitialized = true;
}

// Caller holds gLock. Loading a voice reloads its dictionary: skip when unchanged.
void SelectVoice(const std::string& voice) {
  if (voice == gCurrentVoice) return;
  gCurrentVoice.clear();
  if (espeak_SetVoiceByName(voice.c_str()) != EE_OK) {
    throw EngineFailure(ErrorCode::kEspeak, "espeak-ng has no voice \"" + voice + "\"");
  }
  gCurrentVoice = voice;
}

}  // namespace

std::string Phonemize(const std::string& text, const std::string& voice, bool ipa) {
  std::lock_guard<FifoLock> guard(gLock);
  EnsureInitialized();
  SelectVoice(voice);
  std::string result;
  const void* cursor = text.c_str();
  while (cursor != nullptr) {  // one clause per call
    const char* clause = espeak_TextToPhonemes(&cursor, espeakCHARS_UTF8, ipa ? espeakPHONEMES_IPA : 0);
    if (clause == nullptr || *clause == '\0') continue;
    if (!result.empty()) result += ' ';
    result += clause;
  }
  return result;
}

std::vector<IpaClause> PhonemizeClauses(const std::string& text, const std::string& voice) {
  std::lock_guard<FifoLock> guard(gLock);
  EnsureInitialized();
  SelectVoice(voice);
  std::vector<IpaClause> result;
  const char* base = text.c_str();
  const void* cursor = base;
  const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (cursor != nullptr) {
    const size_t start = static_cast<const char*>(cursor) - base;
    const char* clause = espeak_TextToPhonemes(&cursor, espeakCHARS_UTF8, espeakPHONEMES_IPA);
    size_t end = cursor != nullptr ? static_cast<size_t>(static_cast<const char*>(cursor) - base) : text.size();
    if (cursor != nullptr && end > start) {
      // espeak has read one character (UTF-8 sequence) past the clause.
      do --end; while (end > start && (static_cast<unsigned char>(base[end]) & 0xC0) == 0x80);
    }
    size_t a = start, b = std::min(end, text.size());
    while (a < b && isSpace(base[a])) ++a;
    while (b > a && isSpace(base[b - 1])) --b;
    result.push_back(IpaClause{clause != nullptr ? clause : "", text.substr(a, b - a)});
  }
  return result;
}

std::string PhonemizeInputIpa(const std::string& text, const std::string& voice) {
  std::lock_guard<FifoLock> guard(gLock);
  EnsureInitialized();
  SelectVoice(voice);
  char* buffer = nullptr;
  size_t size = 0;
  FILE* trace = open_memstream(&buffer, &size);
  if (trace == nullptr) throw EngineFailure(ErrorCode::kEspeak, "cannot open a phoneme trace");
  espeak_SetPhonemeTrace(espeakPHONEMES_IPA, trace);
  gSink = nullptr;  // the audio is dropped
  const espeak_ERROR status = espeak_Synth(text.c_str(), text.size() + 1, 0, POS_CHARACTER, 0,
                                           espeakCHARS_UTF8 | espeakPHONEMES, nullptr, nullptr);
  espeak_SetPhonemeTrace(0, nullptr);
  std::fclose(trace);
  std::string result(buffer != nullptr ? buffer : "", size);
  std::free(buffer);
  if (status != EE_OK) throw EngineFailure(ErrorCode::kEspeak, "espeak-ng failed to read phoneme input");
  std::string joined;
  size_t from = 0;
  while (from < result.size()) {
    size_t nl = result.find('\n', from);
    if (nl == std::string::npos) nl = result.size();
    if (nl > from) {
      if (!joined.empty()) joined += ' ';
      joined += result.substr(from, nl - from);
    }
    from = nl + 1;
  }
  return joined;
}

std::vector<VoiceInfo> ListVoices() {
  std::lock_guard<FifoLock> guard(gLock);
  EnsureInitialized();
  std::vector<VoiceInfo> result;
  for (const espeak_VOICE** v = espeak_ListVoices(nullptr); v != nullptr && *v != nullptr; ++v) {
    VoiceInfo info;
    info.name = (*v)->name ? (*v)->name : "";
    info.identifier = (*v)->identifier ? (*v)->identifier : "";
    // `languages` is a list of (priority byte, NUL-terminated name), ended by a 0 byte.
    for (const char* p = (*v)->languages; p != nullptr && *p != 0;) {
      const char* lang = p + 1;
      info.languages.emplace_back(lang);
      p = lang + std::strlen(lang) + 1;
    }
    result.push_back(std::move(info));
  }
  return result;
}

bool SynthesizeSegment(const SynthParams& params, const std::string& text, SynthSink& sink) {
  std::lock_guard<FifoLock> guard(gLock);
  EnsureInitialized();
  SelectVoice(params.voice);
  espeak_SetParameter(espeakRATE, params.rate, 0);
  espeak_SetParameter(espeakPITCH, params.pitch, 0);
  espeak_SetParameter(espeakRANGE, params.range, 0);
  gSink = &sink;
  gSinkStopped = false;
  unsigned int flags = espeakCHARS_UTF8 | espeakENDPAUSE;
  if (params.phonemeInput) flags |= espeakPHONEMES;
  const espeak_ERROR status =
      espeak_Synth(text.c_str(), text.size() + 1, 0, POS_CHARACTER, 0, flags, nullptr, nullptr);
  gSink = nullptr;
  if (gSinkError) std::rethrow_exception(std::exchange(gSinkError, nullptr));
  if (gSinkStopped) return false;
  if (status != EE_OK) {
    throw EngineFailure(ErrorCode::kEspeak,
                        "espeak-ng failed to synthesize (error " + std::to_string(status) + ")");
  }
  return true;
}

}  // namespace sawt::espeak
