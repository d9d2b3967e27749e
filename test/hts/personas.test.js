// Every built-in voice is a persona that speaks on both built-in models, sawt-mini (espeak-ng) and
// sawt-hts (the HMM voice, female personas derived from it at the parameter level), over HTTP; the
// female HTS personas have female F0 (measured here with a plain autocorrelation pitch tracker).
import { readFileSync } from 'node:fs';
import t from 'tap';
import { defaultConfigPath, parseWav, pcmStats, startServer } from '../helpers/server.js';

const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
const engine = config.plugins.find((p) => p.resolve === '@sawt/plugin-engine').options;
const builtins = engine.voices.filter((v) => v.type !== 'neural');
const SHORT = 'مرحبا بكم في خدمة صوت.';
const LONGER = 'السلام عليكم ورحمة الله. يسعدنا أن نقدم لكم خدمة صوت لتحويل النص العربي إلى كلام واضح.';

/**
 * Median F0 (Hz) of PCM16 mono at `rate`: 40 ms frames every 10 ms, normalized autocorrelation over
 * 70–400 Hz; a frame is voiced when its peak is ≥ 0.6 and it is within 30 dB of the loudest frame; the
 * shortest lag within 90 % of the best one is taken (no sub-octave errors).
 */
export function medianF0(pcm, rate = 24000) {
  const x = Float64Array.from({ length: pcm.length >> 1 }, (_, i) => pcm.readInt16LE(i * 2));
  const win = Math.round(rate * 0.04), hop = Math.round(rate * 0.01);
  const minLag = Math.floor(rate / 400), maxLag = Math.ceil(rate / 70);
  const frames = [];
  for (let s = 0; s + win + maxLag <= x.length; s += hop) {
    let e0 = 0;
    for (let i = 0; i < win; i++) e0 += x[s + i] * x[s + i];
    frames.push({ s, e0 });
  }
  const loudest = Math.max(...frames.map((f) => f.e0));
  const f0s = [];
  for (const { s, e0 } of frames) {
    if (e0 < loudest * 1e-3) continue;
    const r = new Float64Array(maxLag + 1);
    for (let lag = minLag; lag <= maxLag; lag++) {
      let c = 0, e1 = 0;
      for (let i = 0; i < win; i++) {
        c += x[s + i] * x[s + i + lag];
        e1 += x[s + i + lag] * x[s + i + lag];
      }
      r[lag] = c / Math.sqrt(e0 * e1 + 1e-9);
    }
    let best = minLag;
    for (let lag = minLag; lag <= maxLag; lag++) if (r[lag] > r[best]) best = lag;
    if (r[best] < 0.6) continue;
    let lag = minLag;
    while (r[lag] < 0.9 * r[best] || r[lag] < r[lag - 1] || r[lag] < r[lag + 1]) lag++;
    f0s.push(rate / lag);
  }
  f0s.sort((a, b) => a - b);
  return f0s.length ? f0s[f0s.length >> 1] : 0;
}

const srv = await startServer(t);
const { headers } = await srv.client();
const tts = async (model, voice_id, text = SHORT) => {
  const res = await fetch(`${srv.api}/text-to-speech/${model}`, { method: 'POST', headers, body: JSON.stringify({ voice_id, text, stability: 0.5, streaming: false }) });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, body, pcm: res.status === 200 ? parseWav(body).data : null };
};

t.test('every built-in voice speaks on sawt-mini and sawt-hts over HTTP', async (t) => {
  t.ok(builtins.length >= 18, `${builtins.length} built-in personas`);
  for (const v of builtins) {
    for (const model of ['sawt-mini', 'sawt-hts']) {
      const r = await tts(model, v.voice_id);
      t.equal(r.status, 200, `${v.voice_id} on ${model}: ${r.status === 200 ? 'audio' : r.body.toString()}`);
      if (r.pcm) {
        const s = pcmStats(r.pcm);
        t.ok(s.seconds > 0.8 && s.rms > 300, `${v.voice_id} on ${model}: ${s.seconds.toFixed(2)} s, RMS ${Math.round(s.rms)}`);
      }
    }
  }
});

t.test('the female personas on sawt-hts have female F0 (180–250 Hz), the male ones below 180 Hz', async (t) => {
  const ziad = medianF0((await tts('sawt-hts', 'fusha-ziad', LONGER)).pcm);
  t.ok(ziad > 90 && ziad < 165, `fusha-ziad (the HTS voice as recorded): ${ziad.toFixed(1)} Hz`);
  for (const v of builtins) {
    const f0 = medianF0((await tts('sawt-hts', v.voice_id, LONGER)).pcm);
    if (v.gender === 'female') t.ok(f0 >= 180 && f0 <= 250, `${v.voice_id} on sawt-hts: F0 median ${f0.toFixed(1)} Hz`);
    else t.ok(f0 >= 80 && f0 < 180, `${v.voice_id} on sawt-hts: F0 median ${f0.toFixed(1)} Hz`);
  }
});

t.test('personas of one dialect and gender differ in F0 and vocal-tract length on both engines', async (t) => {
  const groups = new Map();
  for (const v of builtins) groups.set(`${v.dialect[0]}/${v.gender}`, [...(groups.get(`${v.dialect[0]}/${v.gender}`) ?? []), v]);
  for (const [key, list] of groups) {
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        const [a, b] = [list[i], list[j]];
        const pair = `${key}: ${a.voice_id} / ${b.voice_id}`;
        t.not(a.hts.halfTone, b.hts.halfTone, `${pair}: HTS F0 (half-tones)`);
        t.not(a.hts.alpha, b.hts.alpha, `${pair}: HTS all-pass constant (vocal-tract length)`);
        t.not(a.espeak.pitch, b.espeak.pitch, `${pair}: espeak pitch`);
        t.not(a.espeak.voice, b.espeak.voice, `${pair}: espeak variant (formant scaling)`);
      }
    }
  }
  for (const v of builtins.filter((x) => x.gender === 'female')) t.ok(v.hts.alpha < 0.55, `${v.voice_id}: a shorter vocal tract than the male HTS voice (alpha ${v.hts.alpha})`);
});
