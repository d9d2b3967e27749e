/**
 * Model runs, at most `slots` at once. Requests that wait for a slot are merged into one run when
 * one frees (urgent requests first, then in arrival order, up to `maxRows` rows; a larger request
 * runs alone): under load, many small requests cost one padded run instead of one run each.
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
    while (this.active < this.slots) {
      const batch = this.take();
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

  private take(): Request<Row>[] {
    const batch: Request<Row>[] = [];
    let rows = 0;
    for (const queue of [this.waiting.urgent, this.waiting.later]) {
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
