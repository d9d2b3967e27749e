/**
 * The process's latency policy, in one place (urgency, the turn budget, yielding to first audio,
 * nextTurn): it changes only when work happens, never what a client receives. Where the budget is
 * asked, and what one stretch held the thread before:
 * - the front end, before each stage of a text and of each segment (grant): texts that arrive
 *   together (30 sessions flushing at once) ran all their stages in one turn (measured: 19 ms);
 * - Piper, before each chunk of a sentence (spend): a sentence comes whole from the model (seconds of
 *   audio) and its writes ran in one stretch (measured: 15–27 ms);
 * - an HTTP response before each chunk it writes after the first, a WebSocket piece before each
 *   message (spend).
 */
import { systemClock, type Clock } from './clock.js';

/** A request's first segment is 'urgent' (nothing is heard before it); later ones are due after it played. */
export type Urgency = 'urgent' | 'later';

/** A model run's lane in a RunQueue: a live request's urgency, or work nobody waits to hear (a long-form job's). */
export type RunLane = Urgency | 'background';

/** A promise of the event loop's next turn: the I/O callbacks and timers due now run first. */
export function nextTurn(clock: Clock = systemClock): Promise<void> {
  return new Promise((resolve) => clock.nextTurn(resolve));
}

/**
 * Runs `step` on each item, one per turn of the event loop. Thirty admitted requests resolved at
 * once would run their audio starts back to back in one stretch (measured: 49 ms with 30 WebSocket
 * sessions).
 */
export function eachInTurns<T>(items: T[], step: (item: T, index: number) => void, clock: Clock = systemClock): void {
  let i = 0;
  const next = (): void => {
    step(items[i]!, i);
    if (++i < items.length) clock.nextTurn(next);
  };
  if (items.length) next();
}

/**
 * A share of each event-loop turn for work done for many clients at once: a step past the budget
 * waits for the next turn, so no stretch of the thread grows with the number of clients.
 */
export class TurnBudget {
  #stretchStart = -1;

  /** budgetMs: how long a stretch may run before the next step waits for the next turn. */
  constructor(readonly budgetMs: number, private readonly clock: Clock = systemClock) {}

  /** Null while the current stretch is within the budget (go on); else a promise of the next turn. */
  spend(): Promise<void> | null {
    const now = this.clock.monotonic();
    if (this.#stretchStart < 0) {
      // The first step of a stretch: it ends when the event loop reaches its check phase.
      this.#stretchStart = now;
      this.clock.nextTurn(() => (this.#stretchStart = -1));
      return null;
    }
    return now - this.#stretchStart < this.budgetMs ? null : nextTurn(this.clock);
  }

  /** spend() asked again after each wait until a turn grants the step (waiters all wake in the same turn). */
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

/** Pieces waiting for their first audio, process-wide: a piece already sending yields to them between messages. */
export class FirstAudioWaits {
  #waiting = 0;

  constructor(private readonly clock: Clock = systemClock) {}

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
    return this.#waiting > 0 ? nextTurn(this.clock) : null;
  }
}

export const firstAudioWaits = new FirstAudioWaits();

/**
 * Model runs, at most `slots` at once, and one more for urgent requests only (so that a request's
 * first segment never waits behind long runs of later ones). Requests that wait for a slot are
 * merged into one run when one frees (urgent requests first, then in arrival order, up to `maxRows`
 * rows; a larger request runs alone): under load, many small requests cost one padded run instead
 * of one run each. Background requests take none of those slots: they run one batch at a time
 * beside them, merged only with each other, and `run` is told so (the model then runs on its
 * lower-priority background thread: native/onnx_runs.h). In the slots, 2 long-form jobs' runs held
 * both while a live request's first segment waited (live first byte p95 up to 1.40 x idle).
 */
export class RunQueue<Row> {
  #active = 0;
  #backgroundActive = false;
  readonly #waiting: Record<RunLane, QueuedRun<Row>[]> = { urgent: [], later: [], background: [] };

  constructor(
    private readonly slots: number,
    private readonly maxRows: number,
    private readonly run: (rows: Row[], background: boolean) => Promise<void>,
  ) {}

  /** Resolves once `rows` went through the model (in a run of their own or shared). */
  submit(rows: Row[], urgent: boolean | RunLane): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#waiting[urgent === true ? 'urgent' : urgent === false ? 'later' : urgent].push({ rows, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    if (!this.#backgroundActive && this.#waiting.background.length) {
      this.#backgroundActive = true;
      this.#start(this.#take([this.#waiting.background]), true, () => (this.#backgroundActive = false));
    }
    for (;;) {
      const urgentOnly = this.#active >= this.slots;
      if (this.#active > this.slots || (urgentOnly && this.#waiting.urgent.length === 0)) return;
      const batch = this.#take(urgentOnly ? [this.#waiting.urgent] : [this.#waiting.urgent, this.#waiting.later]);
      if (batch.length === 0) return;
      this.#active++;
      this.#start(batch, false, () => this.#active--);
    }
  }

  #start(batch: QueuedRun<Row>[], background: boolean, done: () => void): void {
    this.run(batch.flatMap((r) => r.rows), background).then(
      () => batch.forEach((r) => r.resolve()),
      (error: unknown) => batch.forEach((r) => r.reject(error)),
    ).finally(() => {
      done();
      this.#pump();
    });
  }

  #take(queues: QueuedRun<Row>[][]): QueuedRun<Row>[] {
    const batch: QueuedRun<Row>[] = [];
    let rows = 0;
    for (const queue of queues) {
      while (queue.length && (batch.length === 0 || rows + queue[0]!.rows.length <= this.maxRows)) {
        const next = queue.shift()!;
        batch.push(next);
        rows += next.rows.length;
      }
      if (queue.length) break; // the batch is full: what waits keeps its place
    }
    return batch;
  }
}
interface QueuedRun<Row> {
  rows: Row[];
  resolve: () => void;
  reject: (error: unknown) => void;
}
