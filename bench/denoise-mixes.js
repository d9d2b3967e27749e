// Test mixes for denoise quality (bench/denoise-quality.js, test/denoise/quality.test.js),
// built as issue 34 asks: one speaker's keyword clips of ../shared/testdata/arabic-speech-commands
// joined (the clean target), the other speaker's clips summed in several overlapping streams
// (babble), or seeded pink noise, scaled to an SNR over the whole clip. 16 kHz mono float.
// Deterministic: the same arguments give the same samples on every machine.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const RATE = 16000;
export const shared = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared');
export const commandsDir = path.join(shared, 'testdata/arabic-speech-commands');
export const hasCommands = existsSync(commandsDir);

/** Mono float samples of any file at `rate` (ffmpeg). */
export function decode(file, rate = RATE) {
  const b = execFileSync('ffmpeg', ['-v', 'error', '-i', file, '-ac', '1', '-ar', String(rate), '-f', 'f32le', 'pipe:1'], { maxBuffer: 1 << 30 });
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.length));
}

/** A seeded PRNG in [0, 1) (mulberry32). */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The speakers of the corpus and their clips (file names, sorted). */
export function speakers() {
  const by = {};
  for (const f of readdirSync(commandsDir).filter((f) => f.endsWith('.wav')).sort()) {
    const spk = f.replace(/\.wav$/, '').split('_').at(-2);
    (by[spk] ??= []).push(f);
  }
  return by;
}

const clipCache = new Map();
function clip(f) {
  if (!clipCache.has(f)) clipCache.set(f, decode(path.join(commandsDir, f)));
  return clipCache.get(f);
}

/** One speaker's clips `offset` .. `offset + n - 1` (sorted by name) joined (the clean target). */
export function speech(speaker, n, offset = 0) {
  const parts = speakers()[speaker].slice(offset, offset + n).map(clip);
  const x = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) { x.set(p, o); o += p.length; }
  return x;
}

/**
 * Babble of `length` samples: `streams` talkers' worth of the given speakers' clips, each
 * stream a shuffled run of clips with random gaps (0-0.3 s), each clip at the same RMS.
 */
export function babble(fromSpeakers, length, { streams = 4, seed = 1 } = {}) {
  const r = rng(seed);
  const files = fromSpeakers.flatMap((s) => speakers()[s]);
  const y = new Float32Array(length);
  for (let s = 0; s < streams; s++) {
    let o = Math.floor(r() * RATE * 0.5);
    while (o < length) {
      const c = clip(files[Math.floor(r() * files.length)]);
      const g = 0.1 / Math.sqrt(power(c) + 1e-12);
      for (let i = 0; i < c.length && o + i < length; i++) y[o + i] += g * c[i];
      o += c.length + Math.floor(r() * RATE * 0.3);
    }
  }
  return y;
}

/** Seeded pink noise (Paul Kellet's filter over white noise), `length` samples. */
export function pink(length, seed = 7) {
  const r = rng(seed);
  const y = new Float32Array(length);
  let b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0;
  for (let i = 0; i < length; i++) {
    const w = r() * 2 - 1;
    b0 = 0.99886 * b0 + w * 0.0555179; b1 = 0.99332 * b1 + w * 0.0750759; b2 = 0.969 * b2 + w * 0.153852;
    b3 = 0.8665 * b3 + w * 0.3104856; b4 = 0.55 * b4 + w * 0.5329522; b5 = -0.7616 * b5 - w * 0.016898;
    y[i] = (b0 + b1 + b2 + b3 + b4 + b5 + b6 + w * 0.5362) * 0.11;
    b6 = w * 0.115926;
  }
  return y;
}

/** Recorded noises of ../shared/testdata/noise (not speech): the kind name and its file. */
export const RECORDED_NOISES = { boiler: 'asc_boiler.wav', 'washing-machine': 'asc_washing_machine.wav', freesound: 'noise_freesound.wav' };
export const noiseDir = path.join(shared, 'testdata/noise');

/** `length` samples of a recorded noise from a seeded offset, looped when shorter. */
export function recorded(kind, length, seed = 1) {
  const x = decode(path.join(noiseDir, RECORDED_NOISES[kind]));
  const y = new Float32Array(length);
  let o = Math.floor(rng(seed)() * x.length);
  for (let i = 0; i < length; i++, o++) y[i] = x[o % x.length];
  return y;
}

export const power = (x) => { let s = 0; for (let i = 0; i < x.length; i++) s += x[i] * x[i]; return s / x.length; };

/** clean + noise scaled to `snr` dB over the whole clip; both scaled so the peak stays under 0.9. Returns {clean, noisy}. */
export function mix(clean, noise, snr) {
  const g = Math.sqrt(power(clean) / (power(noise) * 10 ** (snr / 10)));
  const y = new Float32Array(clean.length);
  let peak = 0;
  for (let i = 0; i < y.length; i++) { y[i] = clean[i] + g * noise[i]; peak = Math.max(peak, Math.abs(y[i])); }
  const k = peak > 0.9 ? 0.9 / peak : 1;
  const c = Float32Array.from(clean, (v) => v * k);
  for (let i = 0; i < y.length; i++) y[i] *= k;
  return { clean: c, noisy: y };
}

/**
 * The conditions of the quality bench: for each target speaker, babble of the other
 * speaker and pink noise (or a recorded noise of RECORDED_NOISES), at each SNR. `clips` clips of target speech (about 1 s each), from
 * the `offset`-th on (another offset: other sentences, other babble and noise seeds).
 */
export function conditions({ clips = 12, offset = 0, snrs = [0, 5], kinds = ['babble', 'pink'], targets } = {}) {
  const by = speakers();
  const out = [];
  for (const spk of targets ?? Object.keys(by)) {
    const clean = speech(spk, clips, offset);
    const others = Object.keys(by).filter((s) => s !== spk);
    for (const kind of kinds) {
      const seed = (Number(spk) || 1) + offset * 1000;
      const noise = kind === 'babble' ? babble(others, clean.length, { seed }) : kind === 'pink' ? pink(clean.length, offset ? seed : Number(spk) || 7) : recorded(kind, clean.length, seed);
      for (const snr of snrs) out.push({ speaker: spk, kind, snr, ...mix(clean, noise, snr) });
    }
  }
  return out;
}

/** PCM16 mono WAV of float samples. */
export function wavPcm16(x, rate = RATE) {
  const b = Buffer.alloc(44 + x.length * 2);
  b.write('RIFF', 0); b.writeUInt32LE(36 + x.length * 2, 4); b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16); b.writeUInt16LE(1, 20); b.writeUInt16LE(1, 22); b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28); b.writeUInt16LE(2, 32); b.writeUInt16LE(16, 34); b.write('data', 36); b.writeUInt32LE(x.length * 2, 40);
  for (let i = 0; i < x.length; i++) b.writeInt16LE(Math.max(-32768, Math.min(32767, Math.round(x[i] * 32768))), 44 + i * 2);
  return b;
}

/** Scale-invariant SDR in dB of `est` against `ref`. */
export function siSdr(ref, est) {
  const n = Math.min(ref.length, est.length);
  let dot = 0, rr = 0;
  for (let i = 0; i < n; i++) { dot += ref[i] * est[i]; rr += ref[i] * ref[i]; }
  const a = dot / rr;
  let s = 0, e = 0;
  for (let i = 0; i < n; i++) { const t = a * ref[i]; s += t * t; const d = est[i] - t; e += d * d; }
  return 10 * Math.log10(s / e);
}
