// A one-line progress bar for downloads, redrawn in place on a terminal
// (percent, megabytes, speed). Off the terminal it draws nothing.
import type { DownloadProgress } from './download.js';
import { mb } from './download.js';

const WIDTH = 24;

export class ProgressBar {
  private started = 0;
  private lastDraw = 0;
  private drawn = false;

  constructor(private readonly label: string, private readonly out: NodeJS.WriteStream | null) {}

  update(p: DownloadProgress): void {
    if (!this.out) return;
    const now = performance.now();
    if (!this.started) this.started = now;
    if (now - this.lastDraw < 100 && (p.total === null || p.received < p.total)) return;
    this.lastDraw = now;
    const seconds = (now - this.started) / 1000;
    const speed = `${((p.received - p.resumedFrom) / 1048576 / Math.max(seconds, 0.001)).toFixed(1)} MB/s`;
    let line: string;
    if (p.total) {
      const f = Math.min(1, p.received / p.total);
      const bar = '#'.repeat(Math.round(f * WIDTH)).padEnd(WIDTH, '-');
      line = `${this.label} [${bar}] ${(f * 100).toFixed(0).padStart(3)}% ${mb(p.received)}/${mb(p.total)} ${speed}`;
    } else {
      line = `${this.label} ${mb(p.received)} ${speed}`;
    }
    if (p.resumedFrom > 0) line += ` (resumed at ${mb(p.resumedFrom)})`;
    const cols = this.out.columns || 100;
    this.out.write(`\r${line.slice(0, cols - 1).padEnd(Math.min(cols - 1, line.length + 8))}`);
    this.drawn = true;
  }

  /** Ends the bar's line (so what follows starts on a fresh line). */
  done(): void {
    if (this.out && this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}

/** Seconds as a reader wants them on a progress line: "42 s", "3 min 5 s", "1 h 12 min". */
export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/**
 * A one-line bar for work counted in characters (sawt say --file): percent, characters done of
 * the total, characters per second and the time left at that pace. Off the terminal it draws nothing.
 */
export class CharacterProgress {
  private readonly started = performance.now();
  private drawn = false;

  constructor(private readonly label: string, private readonly total: number, private readonly out: NodeJS.WriteStream | null) {}

  update(done: number): void {
    if (!this.out) return;
    const seconds = (performance.now() - this.started) / 1000;
    const rate = done / Math.max(seconds, 0.001);
    const f = this.total ? Math.min(1, done / this.total) : 1;
    const eta = done > 0 ? duration((this.total - done) / rate) : '…';
    const bar = '#'.repeat(Math.round(f * WIDTH)).padEnd(WIDTH, '-');
    const line = `${this.label} [${bar}] ${(f * 100).toFixed(0).padStart(3)}% ${done}/${this.total} characters, ${Math.round(rate)} characters/s, ETA ${eta}`;
    const cols = this.out.columns || 120;
    this.out.write(`\r${line.slice(0, cols - 1).padEnd(Math.min(cols - 1, line.length + 8))}`);
    this.drawn = true;
  }

  done(): void {
    if (this.out && this.drawn) this.out.write('\n');
    this.drawn = false;
  }
}
