// Listening proxies for SSML and dictionaries (issue 32): two renderings "sound alike" when
// their durations agree and their 20 ms RMS envelopes correlate.

const RATE = 24000;
const FRAME = (RATE * 20) / 1000;

/** Seconds of 24 kHz PCM16 mono. */
export const seconds = (pcm) => pcm.length / 2 / RATE;

/** RMS of each 20 ms frame of 24 kHz PCM16 mono. */
export function envelope(pcm) {
  const n = Math.floor(pcm.length / 2 / FRAME);
  const out = new Float64Array(n);
  for (let f = 0; f < n; f++) {
    let sum = 0;
    for (let i = 0; i < FRAME; i++) sum += pcm.readInt16LE((f * FRAME + i) * 2) ** 2;
    out[f] = Math.sqrt(sum / FRAME);
  }
  return out;
}

/** Pearson correlation of the two envelopes over the frames both have. */
export function envelopeCorrelation(a, b) {
  const x = envelope(a);
  const y = envelope(b);
  const n = Math.min(x.length, y.length);
  if (n < 2) return 0;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) ** 2;
    syy += (y[i] - my) ** 2;
  }
  return sxx && syy ? sxy / Math.sqrt(sxx * syy) : 0;
}
