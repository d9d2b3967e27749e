/** Time as the server reads and waits on it, one interface so that tests advance it (ManualClock). */
export interface Clock {
  /** Wall time in ms since the epoch: what expiry dates and stored timestamps compare with. */
  now(): number;
  /** Monotonic ms for durations (budgets): never jumps with the wall clock. */
  monotonic(): number;
  /** Calls `fn` once after `ms` (repeatedly with `every`); returns the cancel. ManualClock.advance awaits `fn`'s promise. */
  after(ms: number, fn: () => unknown, opts?: { every?: boolean; unref?: boolean }): () => void;
  /** Calls `fn` in the event loop's next turn (its check phase: after the I/O callbacks due now). */
  nextTurn(fn: () => void): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  after(ms, fn, opts = {}) {
    const timer = opts.every ? setInterval(fn, ms) : setTimeout(fn, ms);
    if (opts.unref) timer.unref();
    return () => (opts.every ? clearInterval(timer) : clearTimeout(timer));
  },
  nextTurn: (fn) => void setImmediate(fn),
};

interface Pending {
  due: number;
  fn: () => unknown;
  every: number | null;
}

/** Lets the promises settled by the callbacks just run go on (their continuations are microtasks). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A clock that moves only when told: `advance(ms)` fires due timers in order, `turn()` runs the next turn. */
export class ManualClock implements Clock {
  #now: number;
  #mono = 0;
  #timers: Pending[] = [];
  #turn: Array<() => void> = [];

  constructor(start = Date.parse('2026-01-01T00:00:00Z')) {
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  monotonic(): number {
    return this.#mono;
  }

  after(ms: number, fn: () => unknown, opts: { every?: boolean } = {}): () => void {
    const t: Pending = { due: this.#mono + ms, fn, every: opts.every ? Math.max(ms, 1) : null };
    this.#timers.push(t);
    return () => void (this.#timers = this.#timers.filter((x) => x !== t));
  }

  nextTurn(fn: () => void): void {
    this.#turn.push(fn);
  }

  /** Moves time on by `ms`, firing each timer due by then at its own time and awaiting what it returns. */
  async advance(ms: number): Promise<void> {
    const end = this.#mono + ms;
    for (;;) {
      // Timers due together fire in the order they were set (the sort is stable).
      const next = this.#timers.filter((t) => t.due <= end).sort((a, b) => a.due - b.due)[0];
      if (!next) break;
      this.#move(next.due);
      if (next.every === null) this.#timers = this.#timers.filter((t) => t !== next);
      else next.due += next.every;
      await next.fn();
      await settle();
    }
    this.#move(end);
    await settle();
  }

  /** Runs what waited for the next turn (what those callbacks ask for waits for the turn after). */
  async turn(): Promise<void> {
    const due = this.#turn;
    this.#turn = [];
    for (const fn of due) fn();
    await settle();
  }

  #move(to: number): void {
    this.#now += to - this.#mono;
    this.#mono = to;
  }
}

/** `work`'s value, or undefined once `ms` passed on `clock` without it (the work goes on unwatched). */
export function within<T>(work: Promise<T>, ms: number, clock: Clock = systemClock): Promise<T | undefined> {
  let cancel = () => {};
  const late = new Promise<undefined>((resolve) => (cancel = clock.after(ms, () => resolve(undefined), { unref: true })));
  return Promise.race([work, late]).finally(cancel);
}
