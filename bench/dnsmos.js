// DNSMOS P.835 (../shared/models/eval/dnsmos/sig_bak_ovr.onnx), the no-reference speech-quality
// estimator of the benches: 16 kHz mono float, windows of 9.01 s hopped by 1 s (a shorter clip is
// repeated to fill one), raw outputs mapped by the non-personalized polynomials, then averaged.
// It is a proxy for listeners, used to compare voices and conversions, not a verdict.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { here } from './harness.js';

export const DNSMOS_PATH = path.resolve(here, '../../shared/models/eval/dnsmos/sig_bak_ovr.onnx');
const WIN = 144160;
const poly = (x, [a, b, c]) => a * x * x + b * x + c;

/** A scorer of PCM16 mono audio (Int16Array or Buffer) at `rate`, or null when the model is not there. */
export async function createDnsmos(rate = 24000) {
  if (!existsSync(DNSMOS_PATH)) return null;
  const { OnnxSession, resample } = await import('@sawt/native');
  const session = await OnnxSession.create(DNSMOS_PATH);
  return async function score(pcm) {
    const i16 = pcm instanceof Int16Array ? pcm : new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length >> 1);
    let audio = Float32Array.from(rate === 16000 ? i16 : resample(i16, rate, 16000), (v) => v / 32768);
    while (audio.length < WIN) { const a = new Float32Array(audio.length * 2); a.set(audio); a.set(audio, audio.length); audio = a; }
    let sig = 0, bak = 0, ovr = 0, n = 0;
    for (let s = 0; s + WIN <= audio.length; s += 16000, n++) {
      const out = await session.run({ [session.inputNames[0]]: { type: 'float32', dims: [1, WIN], data: audio.slice(s, s + WIN) } });
      const [rs, rb, ro] = out[session.outputNames[0]].data;
      sig += poly(rs, [-0.08397278, 1.22083953, 0.0052439]);
      bak += poly(rb, [-0.13166888, 1.60915514, -0.39604546]);
      ovr += poly(ro, [-0.06766283, 1.11546468, 0.04602535]);
    }
    return { sig: sig / n, bak: bak / n, ovrl: ovr / n };
  };
}
