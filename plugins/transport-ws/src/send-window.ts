/** What the socket may hold of a client's messages before generation waits, and when the client counts as gone. */
export interface SendWindowLimits {
  /** Generation waits while the messages not yet written to the socket hold more than this (bytes). */
  highWaterBytes: number;
  /** Above this the client is not reading, at once. */
  maxBufferedBytes: number;
  /** Waiting above highWaterBytes this long without getting below it: the client is not reading. */
  stallTimeoutMs: number;
}

/** The client stopped reading: its messages stay on the socket. */
export class NotReading extends Error {
  constructor() {
    super('client not reading');
  }
}

/** The bytes of a connection's messages ws has not yet written, counted from send() to its callback (no polling of the socket). */
export class SendWindow {
  #bytes = 0;
  #waiters: Array<() => void> = [];

  constructor(private readonly limits: SendWindowLimits) {}

  get bytes(): number {
    return this.#bytes;
  }

  /** Counts a message of `bytes` until the function returned is called (its send callback). */
  hold(bytes: number): () => void {
    this.#bytes += bytes;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.#bytes -= bytes;
      if (this.#bytes <= this.limits.highWaterBytes) for (const wake of this.#waiters.splice(0)) wake();
    };
  }

  /** Resolves once at or below highWaterBytes; rejects with NotReading above maxBufferedBytes or after stallTimeoutMs. */
  belowHighWater(): Promise<void> {
    const { highWaterBytes, maxBufferedBytes, stallTimeoutMs } = this.limits;
    if (this.#bytes <= highWaterBytes) return Promise.resolve();
    if (this.#bytes > maxBufferedBytes) return Promise.reject(new NotReading());
    return new Promise((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== wake);
        reject(new NotReading());
      }, stallTimeoutMs);
      this.#waiters.push(wake);
    });
  }
}
