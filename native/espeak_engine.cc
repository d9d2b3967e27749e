#include "espeak_engine.h"

#include <dlfcn.h>
#include <espeak-ng/speak_lib.h>
#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <sstream>
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
  // Tickets taken and not yet served (the holder included).
  uint64_t Waiting() {
    std::lock_guard<std::mutex> guard(mutex_);
    return nextTicket_ - serving_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable turn_;
  uint64_t nextTicket_ = 0;
  uint64_t serving_ = 0;
};

// The espeak-ng functions Sawt calls (X(name) for each espeak_name), from one copy of the library.
#define SAWT_ESPEAK_API(X) X(Initialize) X(SetSynthCallback) X(SetVoiceByName) X(SetParameter) X(Synth) X(TextToPhonemes) X(ListVoices) X(SetPhonemeTrace)
struct Api {
#define SAWT_FIELD(f) decltype(&espeak_##f) f = espeak_##f;  // the linked library's
  SAWT_ESPEAK_API(SAWT_FIELD)
#undef SAWT_FIELD
};

template <typename F>
void Resolve(void* handle, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(handle, name));
  if (out == nullptr) throw EngineFailure(ErrorCode::kEspeak, std::string("espeak-ng copy lacks ") + name);
}

// A private copy of the linked libespeak-ng: the file is copied to a temporary
// file (a different inode, so the dynamic loader maps it anew, with its own
// globals), opened RTLD_LOCAL and the copy removed at once (the mapping stays).
Api LoadCopy() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&espeak_Initialize), &info) == 0 || info.dli_fname == nullptr) {
    throw EngineFailure(ErrorCode::kEspeak, "cannot locate the espeak-ng library to load another instance");
  }
  const int in = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
  if (in < 0) throw EngineFailure(ErrorCode::kEspeak, std::string("cannot read ") + info.dli_fname);
  const char* tmp = std::getenv("TMPDIR");
  std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/sawt-espeak-XXXXXX";
  const int out = mkostemp(path.data(), O_CLOEXEC);
  if (out < 0) {
    close(in);
    throw EngineFailure(ErrorCode::kEspeak, "cannot create a temporary copy of espeak-ng in " + path);
  }
  struct stat st {};
  bool copied = fstat(in, &st) == 0;
  for (off_t offset = 0; copied && offset < st.st_size;) {
    const ssize_t n = sendfile(out, in, &offset, static_cast<size_t>(st.st_size - offset));
    if (n <= 0) copied = false;
  }
  close(in);
  close(out);
  void* handle = copied ? dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr;
  const std::string error = handle ? "" : (copied ? dlerror() : "copy failed");
  unlink(path.c_str());
  if (handle == nullptr) throw EngineFailure(ErrorCode::kEspeak, "cannot load another espeak-ng instance: " + error);
  Api api;
#define SAWT_RESOLVE(f) Resolve(handle, "espeak_" #f, api.f);
  SAWT_ESPEAK_API(SAWT_RESOLVE)
#undef SAWT_RESOLVE
  return api;  // the handle is never closed: instances live as long as the process
}

// The synthesis in progress on this thread (the callback runs on the caller's thread).
struct SinkState {
  SynthSink* sink = nullptr;
  bool stopped = false;
  std::exception_ptr error;  // thrown by the sink; must not unwind through C
};
thread_local SinkState tState;

int OnSynth(short* wav, int count, espeak_EVENT* events) {
  if (tState.sink == nullptr) return 0;
  thread_local std::vector<WordEvent> words;
  words.clear();
  for (espeak_EVENT* e = events; e != nullptr && e->type != espeakEVENT_LIST_TERMINATED; ++e) {
    if (e->type == espeakEVENT_WORD) {
      words.push_back(WordEvent{e->text_position, e->length, e->audio_position});
    }
  }
  if (count <= 0 && words.empty()) return 0;
  try {
    if (tState.sink->OnAudio(reinterpret_cast<const int16_t*>(wav), wav ? static_cast<size_t>(count) : 0,
                             words)) {
      return 0;
    }
  } catch (...) {
    tState.error = std::current_exception();
  }
  tState.stopped = true;
  return 1;  // abort synthesis of this segment
}

class Instance {
 public:
  explicit Instance(Api api) : api_(api) {}

  FifoLock lock;

  // Caller holds `lock`.
  void EnsureInitialized() {
    if (initialized_) return;
    const int rate = api_.Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nullptr, espeakINITIALIZE_DONT_EXIT);
    if (rate != kSampleRate) {
      throw EngineFailure(ErrorCode::kEspeak,
                          rate < 0 ? "espeak-ng failed to initialize (is espeak-ng-data installed?)"
                                   : "espeak-ng reported an unexpected sample rate " +
                                         std::to_string(rate));
    }
    api_.SetSynthCallback(OnSynth);
    initialized_ = true;
  }

  // Caller holds `lock`. Loading a voice reloads its dictionary: skip when unchanged.
  void SelectVoice(const std::string& voice) {
    if (voice == currentVoice_) return;
    currentVoice_.clear();
    if (api_.SetVoiceByName(voice.c_str()) != EE_OK) {
      throw EngineFailure(ErrorCode::kEspeak, "espeak-ng has no voice \"" + voice + "\"");
    }
    currentVoice_ = voice;
  }

  const Api& api() const { return api_; }

 private:
  const Api api_;
  // Guarded by `lock`.
  bool initialized_ = false;
  std::string currentVoice_;  // last voice spec set successfully
};

std::mutex gInstancesMutex;
int gCount = 1;
std::vector<std::unique_ptr<Instance>> gInstances;  // filled once, then read without the mutex
size_t gSynthesisInstances = 1;  // the first of gInstances; set with them
std::atomic<bool> gLoaded{false};

// Loads the instances on first use: gCount for synthesis, then as many for the front end
// (phonemize; the addon runs as many phonemize threads): text that waits for its phonemes never
// queues behind a segment being synthesized.
void LoadInstances() {
  if (gLoaded.load(std::memory_order_acquire)) return;
  std::lock_guard<std::mutex> guard(gInstancesMutex);
  if (gLoaded.load(std::memory_order_relaxed)) return;
  std::vector<std::unique_ptr<Instance>> made;
  made.push_back(std::make_unique<Instance>(Api{}));
  // A copy that cannot be loaded (e.g. no writable TMPDIR) leaves fewer instances, not an error:
  // calls for the missing ones go to those loaded (index modulo the count), and the front end
  // then shares them.
  try {
    for (int i = 1; i < 2 * gCount; ++i) made.push_back(std::make_unique<Instance>(LoadCopy()));
  } catch (const EngineFailure&) {
  }
  gSynthesisInstances = std::min(static_cast<size_t>(gCount), made.size());
  gInstances = std::move(made);
  gLoaded.store(true, std::memory_order_release);
}

// Synthesis instance `index` (modulo those loaded).
Instance& At(int index) {
  LoadInstances();
  return *gInstances[static_cast<size_t>(index) % gSynthesisInstances];
}

// The front end's instance with the fewest waiting calls (the first of them on a tie): among its
// own, or among the synthesis instances when no copy could be loaded for it.
Instance& ForFrontEnd() {
  LoadInstances();
  const size_t first = gInstances.size() > gSynthesisInstances ? gSynthesisInstances : 0;
  const size_t end = gInstances.size() > gSynthesisInstances ? gInstances.size() : gSynthesisInstances;
  Instance* best = gInstances[first].get();
  uint64_t fewest = best->lock.Waiting();
  for (size_t i = first + 1; i < end && fewest > 0; ++i) {
    Instance& candidate = *gInstances[i];
    const uint64_t waiting = candidate.lock.Waiting();
    if (waiting < fewest) best = &candidate, fewest = waiting;
  }
  return *best;
}

}  // namespace

int SetInstances(int count) {
  std::lock_guard<std::mutex> guard(gInstancesMutex);
  if (!gLoaded.load(std::memory_order_relaxed)) gCount = std::max(1, std::min(8, count));
  return gCount;
}

int Instances() {
  std::lock_guard<std::mutex> guard(gInstancesMutex);
  return gCount;
}

std::string Phonemize(const std::string& text, const std::string& voice, bool ipa) {
  Instance& instance = ForFrontEnd();
  std::lock_guard<FifoLock> guard(instance.lock);
  instance.EnsureInitialized();
  instance.SelectVoice(voice);
  std::string result;
  const void* cursor = text.c_str();
  while (cursor != nullptr) {  // one clause per call
    const char* clause =
        instance.api().TextToPhonemes(&cursor, espeakCHARS_UTF8, ipa ? espeakPHONEMES_IPA : 0);
    if (clause == nullptr || *clause == '\0') continue;
    if (!result.empty()) result += ' ';
    result += clause;
  }
  return result;
}

std::vector<IpaClause> PhonemizeClauses(const std::string& text, const std::string& voice) {
  Instance& instance = ForFrontEnd();
  std::lock_guard<FifoLock> guard(instance.lock);
  instance.EnsureInitialized();
  instance.SelectVoice(voice);
  std::vector<IpaClause> result;
  const char* base = text.c_str();
  const void* cursor = base;
  const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (cursor != nullptr) {
    const size_t start = static_cast<const char*>(cursor) - base;
    const char* clause = instance.api().TextToPhonemes(&cursor, espeakCHARS_UTF8, espeakPHONEMES_IPA);
    size_t end = cursor != nullptr ? static_cast<size_t>(static_cast<const char*>(cursor) - base) : text.size();
    if (cursor != nullptr && end > start) {
      // espeak has read one character (UTF-8 sequence) past the clause.
      do {
        --end;
      } while (end > start && (static_cast<unsigned char>(base[end]) & 0xC0) == 0x80);
    }
    size_t a = start, b = std::min(end, text.size());
    while (a < b && isSpace(base[a])) ++a;
    while (b > a && isSpace(base[b - 1])) --b;
    result.push_back(IpaClause{clause != nullptr ? clause : "", text.substr(a, b - a)});
  }
  return result;
}

std::string PhonemizeInputIpa(const std::string& text, const std::string& voice) {
  Instance& instance = ForFrontEnd();
  std::lock_guard<FifoLock> guard(instance.lock);
  instance.EnsureInitialized();
  instance.SelectVoice(voice);
  char* buffer = nullptr;
  size_t size = 0;
  FILE* trace = open_memstream(&buffer, &size);
  if (trace == nullptr) throw EngineFailure(ErrorCode::kEspeak, "cannot open a phoneme trace");
  instance.api().SetPhonemeTrace(espeakPHONEMES_IPA, trace);
  tState = SinkState{};  // no sink: the audio is dropped
  const espeak_ERROR status = instance.api().Synth(text.c_str(), text.size() + 1, 0, POS_CHARACTER, 0,
                                                   espeakCHARS_UTF8 | espeakPHONEMES, nullptr, nullptr);
  instance.api().SetPhonemeTrace(0, nullptr);
  std::fclose(trace);
  std::string result(buffer != nullptr ? buffer : "", size);
  std::free(buffer);
  if (status != EE_OK) throw EngineFailure(ErrorCode::kEspeak, "espeak-ng failed to read phoneme input");
  std::istringstream lines(result);
  std::string joined;
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty()) joined += (joined.empty() ? "" : " ") + line;
  }
  return joined;
}

std::vector<VoiceInfo> ListVoices() {
  Instance& instance = At(0);
  std::lock_guard<FifoLock> guard(instance.lock);
  instance.EnsureInitialized();
  std::vector<VoiceInfo> result;
  for (const espeak_VOICE** v = instance.api().ListVoices(nullptr); v != nullptr && *v != nullptr; ++v) {
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

bool SynthesizeSegment(const SynthParams& params, const std::string& text, SynthSink& sink, int index) {
  Instance& instance = At(index);
  std::lock_guard<FifoLock> guard(instance.lock);
  instance.EnsureInitialized();
  instance.SelectVoice(params.voice);
  const Api& api = instance.api();
  // The callers' values are checked in TypeScript; clamped here to what espeak-ng is written for.
  api.SetParameter(espeakRATE, std::clamp(params.rate, kMinRate, kMaxRate), 0);
  api.SetParameter(espeakPITCH, std::clamp(params.pitch, 0, 100), 0);
  api.SetParameter(espeakRANGE, std::clamp(params.range, 0, 100), 0);
  tState = SinkState{&sink, false, nullptr};
  unsigned int flags = espeakCHARS_UTF8 | espeakENDPAUSE;
  if (params.phonemeInput) flags |= espeakPHONEMES;
  const espeak_ERROR status = api.Synth(text.c_str(), text.size() + 1, 0, POS_CHARACTER, 0, flags, nullptr, nullptr);
  SinkState state = std::exchange(tState, SinkState{});
  if (state.error) std::rethrow_exception(state.error);
  if (state.stopped) return false;
  if (status != EE_OK) {
    throw EngineFailure(ErrorCode::kEspeak,
                        "espeak-ng failed to synthesize (error " + std::to_string(status) + ")");
  }
  return true;
}

}  // namespace sawt::espeak
