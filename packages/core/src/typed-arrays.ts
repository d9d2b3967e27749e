type Samples = Int16Array | Float32Array | Uint8Array;

/** The parts one after another in one new array of the kind of `empty` (always a copy). */
export function concatSamples<T extends Samples>(parts: readonly T[], empty: T): T {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new (empty.constructor as new (n: number) => T)(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Channels of equal length into one interleaved array (frame by frame: c0 c1 … c0 c1 …). */
export function interleave(channels: readonly Float32Array[]): Float32Array {
  const C = channels.length;
  if (C === 1) return channels[0]!;
  const n = channels[0]!.length;
  const y = new Float32Array(n * C);
  channels.forEach((o, c) => {
    for (let i = 0; i < n; i++) y[i * C + c] = o[i]!;
  });
  return y;
}
