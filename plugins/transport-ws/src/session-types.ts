import type { Authenticator, Logger, PaidSynthesisServices, RateLimiter } from '@sawt/core';

/** What a WebSocket session uses of the server. */
export interface WsDeps extends PaidSynthesisServices {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  logger: Logger;
  track: <T>(p: Promise<T>, cancel: () => void) => Promise<T>;
  /** Counts an open connection for the key over the whole server; rejects with a SawtError when the key has too many (released by the returned function). */
  claimKey?: (keyId: string) => Promise<() => void>;
}

/** A session's figures (diagnostics and tests). */
export interface WsSessionStats {
  id: string;
  /** The socket's readyState (1 open, 2 closing, 3 closed). */
  state: number;
  /** Bytes queued on the socket, not yet sent to the client. */
  bufferedAmount: number;
  /** Bytes of audio messages handed to the socket so far. */
  sentBytes: number;
  /** Audio messages handed to the socket so far. */
  audioMessages: number;
  /** Whether generation currently waits for the client to read. */
  paused: boolean;
  /** Characters waiting for generation (buffer + queue + the piece in progress). */
  pendingChars: number;
  /** Chunks buffered in the speech stream of the piece in progress. */
  streamBuffered: number;
}
