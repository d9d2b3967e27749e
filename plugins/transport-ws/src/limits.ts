/** Per-session limits (plugin options of transport-ws). */
export interface WsLimits {
  /** A message longer than this (bytes) is answered with error 40001 and ignored; the connection stays open. */
  maxMessageBytes: number;
  /** Text waiting for generation (buffer + queued + the piece in progress, in characters); a text message that would exceed it gets 40001 and is ignored. */
  maxPendingChars: number;
  /** Generation pauses while the socket holds more than this many unsent bytes. */
  highWaterBytes: number;
  /** Above this many unsent bytes the session is closed at once with 1008 "client not reading". */
  maxBufferedBytes: number;
  /** Paused (above highWaterBytes) without relief for this long: close 1008 "client not reading". */
  stallTimeoutMs: number;
  /** A ping every interval; a client that has not answered the previous ping is terminated. */
  pingIntervalMs: number;
  /** No client message and no generation for this long: close 1000 "idle timeout". */
  idleTimeoutMs: number;
  /** No successful initConnection this long after the upgrade: error 40001, then close 1008. */
  initTimeoutMs: number;
}

export const DEFAULT_LIMITS: WsLimits = {
  maxMessageBytes: 64 * 1024,
  maxPendingChars: 100_000,
  highWaterBytes: 1 << 20,
  maxBufferedBytes: 8 << 20,
  stallTimeoutMs: 30_000,
  pingIntervalMs: 30_000,
  idleTimeoutMs: 5 * 60_000,
  initTimeoutMs: 10_000,
};
