// Speaker analysis and voice conversion for voice cloning (no Node-API): Analyze() (energy VAD, YIN F0,
// LTAS, third-octave bands, mean MFCCs, syllable rate); MatchSpectra() (the vocal-tract-length warp that
// best aligns a base voice's LTAS with a reference's, and the smooth EQ that remains); Convert() (LPC
// analysis-synthesis: TD-PSOLA on the residual maps log F0; the envelope is warped and equalized).
#pragma once

#include <cstddef>
#include <vector>

namespace sawt {
namespace voice {

constexpr int kFftSize = 1024;
constexpr int kBins = kFftSize / 2 + 1;
constexpr int kMfcc = 13;

struct Analysis {
  int sampleRate = 0;
  double totalSeconds = 0;
  double speechSeconds = 0;  // energy-VAD frames
  double voicedSeconds = 0;  // speech frames with an F0
  double f0Median = 0;  // Hz, 0 when no voiced frame
  double logF0Mean = 0;
  double logF0Std = 0;
  double syllableRate = 0;  // nuclei per second of speech
  std::vector<double> ltasDb;  // kBins, dB, mean over 100..7500 Hz removed
  std::vector<double> bandsDb;  // third-octave bands 100 Hz..8 kHz, dB, mean removed
  std::vector<double> bandCenters;
  std::vector<double> mfccMean;  // c1..c12 (kMfcc - 1 values)
};

Analysis Analyze(const float* x, size_t n, int sampleRate);

struct SpectralMatch {
  double warp = 1;  // >1: reference formants are higher than the base's
  double distanceBefore = 0;  // dB RMS, unwarped
  double distanceAfter = 0;  // dB RMS, warped
  std::vector<double> eqDb;  // kBins
};

SpectralMatch MatchSpectra(const std::vector<double>& refLtasDb, const std::vector<double>& baseLtasDb, int sampleRate);

struct ConvertParams {
  double srcLogF0Mean = 0, srcLogF0Std = 0.1;
  double dstLogF0Mean = 0, dstLogF0Std = 0.1;
  double warp = 1;
  std::vector<double> eqDb;  // kBins or empty
  // F0 track of the input (Hz per 10 ms hop, 0 = unvoiced, as TrackF0 gives it);
  // tracked inside Convert when empty.
  std::vector<double> f0;
};

std::vector<float> Convert(const float* x, size_t n, int sampleRate, const ConvertParams& p);

// F0 track (Hz per 10 ms hop, 0 = unvoiced) by YIN, exposed for tests/bench.
std::vector<double> TrackF0(const float* x, size_t n, int sampleRate, int hop);

}  // namespace voice
}  // namespace sawt
