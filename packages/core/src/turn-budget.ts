/**
 * A share of each turn of the event loop for work done on behalf of many clients at once: sending
 * audio messages, writing a response's chunks, pushing a sentence's chunks. A step that finds the
 * current stretch of such work already longer than the budget waits for the next turn
 * (setImmediate), so timers, network reads and other requests' first steps run in between and
 * no stretch of the JavaScript thread grows with the number of clients. One budget per process:
 * every caller counts against the same stretch. Only when work happens changes, never its order
 * within one stream.
 */
export class TurnBudget {
  #stretchStart = -1;

  /** budgetMs: how long a stretch may run before the next step waits for the next turn. */
  constructor(readonly budgetMs: number) {}

  /** Null while the current stretch is within the budget (go on); else a promise of the next turn. */
  spend(): Promise<void> | null {
    const now = performance.now();
    if (this.#stretchStart < 0) {
      // The first step of a stretch: it ends when the event loop reaches its check phase.
      this.#stretchStart = now;
      setImmediate(() => {
        this.#stretchStart = -1;
      });
      return null;
    }
    return now - this.#stretchStart < this.budgetMs ? null : new Promise((resolve) => setImmediate(resolve));
  }

  /**
   * spend() asked again after each wait until a turn grants the step: null when it may run now;
   * else a promise that resolves in the turn that granted it, before anything else runs there. Steps
   * that waited all wake in the same turn, and after spend() alone they would all run there.
   */
  grant(): Promise<void> | null {
    const wait = this.spend();
    return wait && this.#granted(wait);
  }

  async #granted(wait: Promise<void> | null): Promise<void> {
    for (; wait; wait = this.spend()) await wait;
  }
}

/**
 * The process's budget: 5 ms of delivery work per stretch, a quarter of the 20 ms the event loop
 * may be held (garbage collection pauses and the steps already under way come on top).
 */
export const turnBudget = new TurnBudget(5);
