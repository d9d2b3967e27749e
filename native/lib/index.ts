export {
  locateAddon,
  nativeAddon,
  type NativeChunkInfo,
  type EspeakVoice,
  type Tensor,
  type TensorData,
  type TensorDescription,
  type TensorType,
  type WordTiming,
} from './addon.js';
export { ENGINE_ERROR_CODES, EngineError, isEngineError, type EngineErrorCode } from './errors.js';
export { availableProviders, OnnxSession, type OnnxSessionOptions } from './onnx-session.js';
export { espeakInstances, listVoices, phonemize, type PhonemeMode } from './phonemize.js';
export { resample, Resampler } from './resampler.js';
export { AudioEncoder, type EncoderCodec } from './encoder.js';
export { pcmInFlight, SynthesisStream, synthesizeStream, type SynthesisChunk } from './synthesis-stream.js';
export { htsParameters, synthesizeHtsStream } from './hts.js';
export type { HtsParameterInput, HtsParameterStreams, HtsWordInput, NativeHtsControls, NativeHtsOptions, NativeHtsSource, NativeHtsSynthesisOptions, NativeHtsSynthesisSettings } from './addon.js';
export { ESPEAK_RATE_RANGE, SUPPORTED_SAMPLE_RATES, type SupportedSampleRate, type SynthesisOptions } from './validate.js';
export { analyzeVoice, convertVoice, matchSpectra, trackF0, type VoiceAnalysis, type SpectralMatch, type ConvertParams } from './voice.js';
export { DFN3_FILES, Dfn3Model, Dfn3Stream, type Dfn3Files, type Dfn3Options } from './dfn3.js';
export { ipaClauses, phonemeInputIpa, PiperSession, type PiperSessionOptions } from './piper.js';
export type { NativePiperRunOptions, NativePiperStats } from './addon.js';
