// One-line progress bars, redrawn in place on a terminal. Off the terminal they draw nothing.
import type { DownloadProgress } from './download.js';
import { mb } from './download.js';
import { duration } from './jobs.js';

const WIDTH = 24;

const bar = (f: number) => '#'.repeat(Math.round(f * WIDTH)).padEnd(WIDTH, '-');

class InPlaceLine {
  private drawn = false;

  constructor(protected readonly out: NodeJS.WriteStream | null, private readonly defaultColumns: number) {}

  protected draw(line: string): void {
    const cols = this.out!.columns || this.defaultColumns;
    this.out!.write(`\r${line.slice(0, cols - 1).padEnd(Math.min(cols - 1, line.length + 8))}`);
    this.drawn = true;
  }

  /** Ends the bar's line (so what follows starts on a fresh line). */
  done(): void {
    if (this.out && this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}

/** A download's bar: percent, megabytes, speed. */
export class ProgressBar extends InPlaceLine {
  private started = 0;
  private lastDraw = 0;

  constructor(private readonly label: string, out: NodeJS.WriteStream | null) {
    super(out, 100);
  }

  update(p: DownloadProgress): void {
    if (!this.out) return;
    const now = performance.now();
    if (!this.started) this.started = now;
    if (now - this.lastDraw < 100 && (p.total === null || p.received < p.total)) return;
    this.lastDraw = now;
    const seconds = (now - this.started) / 1000;
    const speed = `${((p.received - p.resumedFrom) / 1048576 / Math.max(seconds, 0.001)).toFixed(1)} MB/s`;
    const f = p.total ? Math.min(1, p.received / p.total) : 0;
    let line = p.total ? `${this.label} [${bar(f)}] ${(f * 100).toFixed(0).padStart(3)}% ${mb(p.received)}/${mb(p.total)} ${speed}` : `${this.label} ${mb(p.received)} ${speed}`;
    if (p.resumedFrom > 0) line += ` (resumed at ${mb(p.resumedFrom)})`;
    this.draw(line);
  }
}

/** Work counted in characters (sawt say --file): percent, characters done, characters per second, time left at that pace. */
export class CharacterProgress extends InPlaceLine {
  private readonly started = performance.now();

  constructor(private readonly label: string, private readonly total: number, out: NodeJS.WriteStream | null) {
    super(out, 120);
  }

  update(done: number): void {
    if (!this.out) return;
    const seconds = (performance.now() - this.started) / 1000;
    const rate = done / Math.max(seconds, 0.001);
    const f = this.total ? Math.min(1, done / this.total) : 1;
    const eta = done > 0 ? duration(Math.max(0, (this.total - done) / rate)) : '…';
    this.draw(`${this.label} [${bar(f)}] ${(f * 100).toFixed(0).padStart(3)}% ${done}/${this.total} characters, ${Math.round(rate)} characters/s, ETA ${eta}`);
  }
}
