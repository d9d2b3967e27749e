/**
 * Model runs, at most `slots` at once, and one more for urgent requests only (so that a request's
 * first segment never waits behind long runs of later ones). Requests that wait for a slot are
 * merged into one run when one frees (urgent requests first, then in arrival order, up to `maxRows`
 * rows; a larger request runs alone): under load, many small requests cost one padded run instead
 * of one run each.
 */
export class RunQueue<Row> {
  private active = 0;
  private readonly waiting: { urgent: Request<Row>[]; later: Request<Row>[] } = { urgent: [], later: [] };

  constructor(
    private readonly slots: number,
    private readonly maxRows: number,
    private readonly run: (rows: Row[]) => Promise<void>,
  ) {}

  /** Resolves once `rows` went through the model (in a run of their own or shared). */
  submit(rows: Row[], urgent: boolean): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting[urgent ? 'urgent' : 'later'].push({ rows, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    for (;;) {
      const urgentOnly = this.active >= this.slots;
      if (this.active > this.slots || (urgentOnly && this.waiting.urgent.length === 0)) return;
      const batch = this.take(urgentOnly);
      if (batch.length === 0) return;
      this.active++;
      this.run(batch.flatMap((r) => r.rows)).then(
        () => batch.forEach((r) => r.resolve()),
        (error: unknown) => batch.forEach((r) => r.reject(error)),
      ).finally(() => {
        this.active--;
        this.pump();
      });
    }
  }

  private take(urgentOnly: boolean): Request<Row>[] {
    const batch: Request<Row>[] = [];
    let rows = 0;
    for (const queue of urgentOnly ? [this.waiting.urgent] : [this.waiting.urgent, this.waiting.later]) {
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

interface Request<Row> {
  rows: Row[];
  resolve: () => void;
  reject: (error: unknown) => void;
}
