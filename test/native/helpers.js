// Shared by the native tests: signal measures and synthesis collectors.
import { fileURLToPath } from 'node:url';

export const NATIVE = fileURLToPath(new URL('../../native/dist/index.js', import.meta.url));

export function rms(samples, from = 0, to = samples.length) {
  let sum = 0;
  for (let i = from; i < to; i++) sum += samples[i] * samples[i];
  return Math.sqrt(sum / Math.max(1, to - from));
}

export function pcm(buffer) {
  return new Int16Array(buffer.buffer, buffer.byteOffset, buffer.byteLength / 2);
}

export function sine(frequency, rate, count, amplitude = 10000) {
  const x = new Int16Array(count);
  for (let i = 0; i < count; i++) x[i] = Math.round(amplitude * Math.sin((2 * Math.PI * frequency * i) / rate));
  return x;
}

/** Reads a SynthesisStream ({ pcm, info } chunks) to the end: { samples: Int16Array, infos }. */
export async function collect(stream) {
  const infos = [];
  const buffers = [];
  for await (const { pcm: chunk, info } of stream) {
    buffers.push(chunk);
    infos.push(info);
  }
  return { samples: pcm(Buffer.concat(buffers)), infos };
}

/** Median fundamental frequency (Hz) of the loud frames, by autocorrelation. */
export function medianPitch(samples, rate) {
  const frame = Math.round(rate * 0.04);
  const minLag = Math.round(rate / 400);
  const maxLag = Math.round(rate / 60);
  const loud = rms(samples) * 0.8;
  const pitches = [];
  for (let start = 0; start + frame + maxLag < samples.length; start += frame) {
    if (rms(samples, start, start + frame) < loud) continue;
    let best = 0;
    let bestLag = 0;
    for (let lag = minLag; lag <= maxLag; lag++) {
      let sum = 0;
      for (let i = start; i < start + frame; i++) sum += samples[i] * samples[i + lag];
      if (sum > best) [best, bestLag] = [sum, lag];
    }
    if (bestLag) pitches.push(rate / bestLag);
  }
  pitches.sort((a, b) => a - b);
  return pitches[Math.floor(pitches.length / 2)] ?? 0;
}

export const SENTENCE = 'ذَهَبَ الوَلَدُ إِلى المَدْرَسَةِ في الصَّباحِ الباكِرِ.';
export const LONG_SENTENCE =
  'ذَهَبَ الوَلَدُ إِلى المَدْرَسَةِ في الصَّباحِ الباكِرِ، وَكانَ الجَوُّ جَميلاً وَالشَّمْسُ مُشْرِقَةً. ' +
  'قابَلَ أَصْدِقاءَهُ في الطَّريقِ وَتَحَدَّثوا عَنِ الدُّروسِ.';
export const BASE = { voice: 'ar', rate: 175, pitch: 50, range: 50 };
