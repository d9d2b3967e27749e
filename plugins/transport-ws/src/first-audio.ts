/**
 * Pieces waiting for their first audio, process-wide. A piece that is already sending audio
 * yields the JavaScript thread before each further message while another piece still waits for
 * its first one: the waiting pieces' database round trips and front-end steps then run between
 * those messages instead of after all of them. Only the order of work on the thread changes;
 * what each client receives, and in what order, does not.
 */
export class FirstAudioWaits {
  #waiting = 0;

  /** A piece starts waiting for its first audio; the function returned (idempotent) ends the wait. */
  enter(): () => void {
    this.#waiting++;
    let open = true;
    return () => {
      if (!open) return;
      open = false;
      this.#waiting--;
    };
  }

  /** Null when no piece waits; else a promise of the event loop's next turn (I/O callbacks first). */
  yieldToWaiting(): Promise<void> | null {
    return this.#waiting > 0 ? new Promise((resolve) => setImmediate(resolve)) : null;
  }
}

export const firstAudioWaits = new FirstAudioWaits();
