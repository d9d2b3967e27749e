// npm run bench:resampler: the addon's resampler (native/resampler.cc, libsoxr SOXR_HQ) on the
// conversions Sawt makes: passband ripple, stopband attenuation, speed, and the properties the
// synthesis paths rely on (exact length, chunking that does not change the output, no delay).
// Results go to bench/results/resampler.json. Commit 1977620 ran it on the hand-written Kaiser-sinc
// resampler this one replaced beside soxr (ripple 3.8 dB up to 0.9 × Nyquist, 28 to 90 dB stop band,
// against soxr's 0.01 dB and 95 to 113 dB at about the same speed): soxr won on every quality figure.
//
// - Passband ripple: sines of amplitude 0.5 FS from 50 Hz up to 0.9 × the lower rate's Nyquist;
//   the gain of each (its level at its own frequency in the output, Hann-windowed DFT) in dB;
//   ripple = max − min of those gains.
// - Stopband attenuation: downsampling: sines from the output Nyquist up to 0.98 × the input
//   Nyquist (whatever comes out is alias); upsampling: the images (at inRate − f) of the passband
//   sines. The figure is the worst (highest) level found, in dB below the input sine.
// - Speed: input samples per second (millions), 20 s of noise fed in 4096-sample chunks through
//   the JS class (the same path for both), best of 5.
import { nativeAddon } from '@sawt/native';
import { concatSamples } from '@sawt/core';
import { writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const addon = nativeAddon();
const ENGINES = { soxr: addon.Resampler };
const CONVERSIONS = [[22050, 24000], [22050, 16000], [24000, 8000], [16000, 48000]];
const AMPLITUDE = 16384;

function run(Engine, inRate, outRate, input, chunk = input.length) {
  const r = new Engine(inRate, outRate);
  const parts = [];
  for (let i = 0; i < input.length; i += chunk) parts.push(r.process(input.subarray(i, i + chunk)));
  parts.push(r.flush());
  return concatSamples(parts, new Int16Array(0));
}

function sine(rate, f, seconds = 1) {
  const x = new Int16Array(Math.round(rate * seconds));
  for (let i = 0; i < x.length; i++) x[i] = Math.round(AMPLITUDE * Math.sin((2 * Math.PI * f * i) / rate));
  return x;
}

// Amplitude and phase of frequency f in y[from, to) (Hann window; amplitude of a full-scale-free sine).
function tone(y, rate, f, from, to) {
  let re = 0;
  let im = 0;
  let wsum = 0;
  for (let i = from; i < to; i++) {
    const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * (i - from)) / (to - from - 1));
    const a = (2 * Math.PI * f * i) / rate;
    re += w * y[i] * Math.cos(a);
    im -= w * y[i] * Math.sin(a);
    wsum += w;
  }
  return { amplitude: (2 * Math.hypot(re, im)) / wsum, phase: Math.atan2(im, re) };
}

function rms(y, from, to) {
  let s = 0;
  for (let i = from; i < to; i++) s += y[i] * y[i];
  return Math.sqrt(s / (to - from));
}

const db = (x) => 20 * Math.log10(Math.max(x, 1e-12));
const round = (x, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

function measure(name, Engine, inRate, outRate) {
  const lowNyquist = Math.min(inRate, outRate) / 2;
  const edge = Math.round(0.05 * outRate); // skip 50 ms at each end (the filters' start and tail)
  // Passband.
  const gains = [];
  for (let k = 0; k <= 40; k++) {
    const f = 50 + ((0.9 * lowNyquist - 50) * k) / 40;
    const y = run(Engine, inRate, outRate, sine(inRate, f));
    gains.push(db(tone(y, outRate, f, edge, y.length - edge).amplitude / AMPLITUDE));
  }
  // Stopband.
  let worst = -Infinity;
  if (outRate < inRate) {
    for (let k = 0; k <= 30; k++) {
      const f = outRate / 2 + ((0.98 * inRate) / 2 - outRate / 2) * (k / 30);
      const y = run(Engine, inRate, outRate, sine(inRate, f));
      worst = Math.max(worst, db((rms(y, edge, y.length - edge) * Math.SQRT2) / AMPLITUDE));
    }
  } else {
    for (let k = 0; k <= 40; k++) {
      const f = 50 + ((0.9 * lowNyquist - 50) * k) / 40;
      const y = run(Engine, inRate, outRate, sine(inRate, f));
      worst = Math.max(worst, db(tone(y, outRate, inRate - f, edge, y.length - edge).amplitude / AMPLITUDE));
    }
  }
  // Delay: the phase of a 1 kHz tone against the ideal (output k at input time k·in/out), in output samples.
  const y1k = run(Engine, inRate, outRate, sine(inRate, 1000));
  const { phase } = tone(y1k, outRate, 1000, edge, y1k.length - edge);
  let dphi = phase - -Math.PI / 2; // a pure sine's phase against cos
  dphi = Math.atan2(Math.sin(dphi), Math.cos(dphi));
  const delay = (-dphi / (2 * Math.PI * 1000)) * outRate;
  // Length and chunking.
  const noise = new Int16Array(inRate * 3);
  let seed = 7;
  for (let i = 0; i < noise.length; i++) noise[i] = (((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) - 0.5) * 20000;
  const whole = run(Engine, inRate, outRate, noise);
  const chunked = run(Engine, inRate, outRate, noise, 1000);
  const odd = run(Engine, inRate, outRate, noise, 317);
  const identical = Buffer.from(whole.buffer).equals(Buffer.from(chunked.buffer)) && Buffer.from(whole.buffer).equals(Buffer.from(odd.buffer));
  const exactLength = whole.length === Math.ceil((noise.length * outRate) / inRate);
  // Speed.
  const big = new Int16Array(inRate * 20);
  for (let i = 0; i < big.length; i++) big[i] = noise[i % noise.length];
  let best = Infinity;
  for (let i = 0; i < 5; i++) {
    const t0 = process.hrtime.bigint();
    run(Engine, inRate, outRate, big, 4096);
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
  }
  return {
    engine: name,
    conversion: `${inRate}->${outRate}`,
    passbandRippleDb: round(Math.max(...gains) - Math.min(...gains), 3),
    passbandGainDb: { min: round(Math.min(...gains), 3), max: round(Math.max(...gains), 3), at0_9Nyquist: round(gains.at(-1), 3) },
    stopbandAttenuationDb: round(-worst, 1),
    delayOutputSamples: round(delay, 3),
    exactLength,
    chunkingInvariant: identical,
    msamplesPerSecond: round(big.length / best / 1e6, 1),
  };
}

const rows = [];
for (const [inRate, outRate] of CONVERSIONS) {
  for (const [name, Engine] of Object.entries(ENGINES)) rows.push(measure(name, Engine, inRate, outRate));
}
console.log('conversion     engine  ripple dB  gain@0.9Nyq dB  stopband dB  delay smp  exact len  chunk-inv  Msamples/s');
for (const r of rows) {
  console.log(
    `${r.conversion.padEnd(14)} ${r.engine.padEnd(7)} ${String(r.passbandRippleDb).padStart(9)}  ${String(r.passbandGainDb.at0_9Nyquist).padStart(14)}  ${String(r.stopbandAttenuationDb).padStart(11)}  ${String(r.delayOutputSamples).padStart(9)}  ${String(r.exactLength).padStart(9)}  ${String(r.chunkingInvariant).padStart(9)}  ${String(r.msamplesPerSecond).padStart(10)}`,
  );
}
mkdirSync(path.join(here, 'results'), { recursive: true });
writeFileSync(path.join(here, 'results', 'resampler.json'), `${JSON.stringify({ date: new Date().toISOString(), rows }, null, 2)}\n`);
