/**
 * Sampling of repeated log lines (a client hammering past its rate limit must not
 * write one line per refusal: a flood once gave 30,000). Per key (e.g. the API key
 * and the errorCode), the first line of each window is written and carries how
 * many like it were left out since the previous written one; `flush()` reports
 * keys whose window ended with lines left out, so a flood's tail is counted too.
 */
export class LogSampler {
  private readonly entries = new Map<string, { windowStart: number; suppressed: number }>();

  constructor(private readonly windowMs = 10_000, private readonly maxKeys = 10_000) {}

  /** null: leave this line out; a number: write it, noting that many left out before it. */
  take(key: string, now = Date.now()): number | null {
    const e = this.entries.get(key);
    if (e && now - e.windowStart < this.windowMs) {
      e.suppressed++;
      return null;
    }
    const suppressed = e?.suppressed ?? 0;
    if (!e && this.entries.size >= this.maxKeys) this.flush(now);
    this.entries.set(key, { windowStart: now, suppressed: 0 });
    return suppressed;
  }

  /** Keys whose window has ended with lines left out (each reported once), forgetting quiet ones. */
  flush(now = Date.now()): Array<{ key: string; suppressed: number }> {
    const out: Array<{ key: string; suppressed: number }> = [];
    for (const [key, e] of this.entries) {
      if (now - e.windowStart < this.windowMs) continue;
      if (e.suppressed > 0) out.push({ key, suppressed: e.suppressed });
      this.entries.delete(key);
    }
    return out;
  }
}
