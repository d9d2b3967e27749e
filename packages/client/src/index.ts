export { SawtClient, type SawtClientOptions, type SpeechRequest, type PreviewRequest, type CloneRequest, type PcmStream, type AudioStream, type TimedAudio, formatSampleRate } from './client.js';
export {
  SawtError, ValidationError, AuthenticationError, InsufficientBalanceError, AccessError, NotFoundError, RateLimitError, ServerError,
  ConnectionError, WebSocketClosedError,
} from './errors.js';
export { Jobs, type Job, type JobRequest, type JobCreated, type JobPage, type JobChapters, type JobStatus } from './jobs.js';
export { PronunciationDictionaries, type PronunciationRule, type DictionaryLocator, type CreateDictionaryRequest, type UpdateDictionaryRequest, type PlsInput } from './pronunciation-dictionaries.js';
export type { RetryOptions, RequestOptions, AudioInput } from './http.js';
export { SpeechSession, type SpeechSessionOptions, type SpeechEvent, type AudioEvent, type ErrorEvent, type Alignment, type Mark, type TextType, type OutputFormat, type WebSocketLike } from './speech-session.js';
export { pcmToWav, pcm16ToFloat32, Pcm16Aligner, PCM_SAMPLE_RATE } from './pcm.js';
export type * from './generated/api-types.js';
export { OPERATIONS, OUTPUT_FORMATS } from './generated/api-types.js';
