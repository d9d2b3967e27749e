// HTS voice: native synthesis (non-silent 24 kHz, duration grows with text), variants
// differ in pitch, parameter streams, synthesis from (edited) parameter streams, and the sawt-hts model
// over HTTP. Skips without the voice file.
import t from 'tap';
import { startServer, withoutBundledModels } from '../helpers/server.js';
import { ready, wsConfig } from '../helpers/ws.js';
import { ENGINE, VOICE_FILE } from './helpers.js';

const { textToLabels } = await import(ENGINE);
const { synthesizeHtsStream, htsParameters, trackF0 } = await import('@sawt/native');

const SHORT = 'السَّلَامُ عَلَيْكُمْ.';
const LONG = 'السَّلَامُ عَلَيْكُمْ وَرَحْمَةُ اللَّهِ وَبَرَكَاتُهُ. يُعَدُّ الْعِلْمُ مِفْتَاحَ التَّقَدُّمِ، وَالْقِرَاءَةُ غِذَاءُ الْعَقْلِ.';

async function render(text, extra = {}) {
  return collect(synthesizeHtsStream({ voicePath: VOICE_FILE, utterances: textToLabels(text), sampleRate: 24000, ...extra }));
}

async function collect(stream, onInfo = () => {}) {
  const bufs = [];
  for await (const { pcm, info } of stream) {
    bufs.push(pcm);
    onInfo(info);
  }
  const buf = Buffer.concat(bufs);
  return new Int16Array(buf.buffer, buf.byteOffset, buf.length / 2);
}

function stats(pcm) {
  let sum = 0, peak = 0;
  for (const v of pcm) { sum += v * v; peak = Math.max(peak, Math.abs(v)); }
  return { rms: Math.sqrt(sum / pcm.length), peak, seconds: pcm.length / 24000 };
}

// Median F0 (Hz) of voiced 40 ms frames by autocorrelation, 60–400 Hz.
function medianF0(pcm, rate = 24000) {
  const n = Math.round(0.04 * rate), f0s = [];
  for (let s = 0; s + n < pcm.length; s += n) {
    let e = 0;
    for (let i = 0; i < n; i++) e += pcm[s + i] ** 2;
    if (Math.sqrt(e / n) < 1500) continue;
    let best = 0, lag = 0;
    for (let L = Math.floor(rate / 400); L <= Math.ceil(rate / 60); L++) {
      let c = 0;
      for (let i = 0; i + L < n; i++) c += pcm[s + i] * pcm[s + i + L];
      if (c > best) { best = c; lag = L; }
    }
    if (best > 0.5 * e && lag) f0s.push(rate / lag);
  }
  f0s.sort((a, b) => a - b);
  return f0s[Math.floor(f0s.length / 2)];
}

function correlation(a, b) {
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < Math.min(a.length, b.length); i++) { ab += a[i] * b[i]; aa += a[i] * a[i]; bb += b[i] * b[i]; }
  return ab / Math.sqrt(aa * bb);
}

// Median of the voiced frames of the engine's own F0 tracker (YIN, 0 = unvoiced).
async function trackedMedianF0(pcm) {
  const f0 = [...(await trackF0(pcm, 24000))].filter((v) => v > 0).sort((a, b) => a - b);
  return f0[Math.floor(f0.length / 2)];
}

t.test('synthesis: non-silent 24 kHz audio, duration grows with text, no clipping', async (t) => {
  const short = await render(SHORT);
  const long = await render(LONG);
  const s = stats(short), l = stats(long);
  t.ok(s.seconds > 0.5 && s.seconds < 5, `short: ${s.seconds.toFixed(2)} s`);
  t.ok(l.seconds > 2.5 * s.seconds, `long (${l.seconds.toFixed(2)} s) is much longer than short`);
  t.ok(s.rms > 500 && l.rms > 500, `non-silent (rms ${s.rms.toFixed(0)}, ${l.rms.toFixed(0)})`);
  t.ok(l.peak < 32767, `no clipping (peak ${l.peak})`);
  const fast = await render(LONG, { speed: 1.5 });
  t.ok(fast.length < long.length * 0.8, 'speed shortens the audio');
});

t.test('variants differ in pitch', async (t) => {
  const base = medianF0(await render(LONG));
  const high = medianF0(await render(LONG, { halfTone: 5, alpha: 0.5 }));
  t.ok(base > 70 && base < 250, `base median F0 ${base?.toFixed(1)} Hz`);
  t.ok(high / base > 1.2, `+5 half-tones: ${high?.toFixed(1)} Hz vs ${base?.toFixed(1)} Hz`);
});

t.test('parameter streams are exposed (log F0, mel-cepstrum) and follow the controls', async (t) => {
  const utterances = textToLabels(LONG);
  const [p0] = await htsParameters({ voicePath: VOICE_FILE, utterances: [utterances[0]] });
  const [p5] = await htsParameters({ voicePath: VOICE_FILE, utterances: [utterances[0]], halfTone: 5 });
  t.ok(p0.frames > 100, `${p0.frames} frames`);
  t.equal(p0.dims.mgc, 35);
  t.equal(p0.mgc.length, p0.frames * 35);
  t.equal(p0.lf0.length, p0.frames);
  const mean = (a) => { let s = 0, n = 0; for (const v of a) if (!Number.isNaN(v)) { s += v; n++; } return s / n; };
  t.ok(Math.abs(mean(p5.lf0) - mean(p0.lf0) - (5 * Math.LN2) / 12) < 0.01, 'half-tones shift the generated log F0 exactly');
  t.ok(p0.lf0.some(Number.isNaN) && p0.lf0.some((v) => !Number.isNaN(v)), 'voiced and unvoiced frames');
});

t.test('mgcOffset adds to every generated mel-cepstrum frame and shapes the spectrum', async (t) => {
  const utterances = [textToLabels(LONG)[0]];
  const offset = new Array(35).fill(0);
  offset[1] = -0.3; // c1 < 0 tilts the log spectrum up toward high frequencies (log|H| = Σ cm cos(mω̃))
  const [p0] = await htsParameters({ voicePath: VOICE_FILE, utterances });
  const [p1] = await htsParameters({ voicePath: VOICE_FILE, utterances, mgcOffset: offset });
  let worst = 0;
  for (let f = 0; f < p0.frames; f++) {
    for (let k = 0; k < 35; k++) worst = Math.max(worst, Math.abs(p1.mgc[f * 35 + k] - p0.mgc[f * 35 + k] - offset[k]));
  }
  t.ok(worst < 1e-5, `every frame moved by the offset (worst error ${worst.toExponential(1)})`);
  // Audio: the share of energy above 3 kHz grows (first difference as a crude high-pass).
  const hf = (pcm) => { let d = 0, e = 0; for (let i = 1; i < pcm.length; i++) { d += (pcm[i] - pcm[i - 1]) ** 2; e += pcm[i] ** 2; } return d / e; };
  const flat = await render(LONG), bright = await render(LONG, { mgcOffset: offset });
  t.ok(hf(bright) > 1.3 * hf(flat), `brighter: ${hf(flat).toFixed(3)} → ${hf(bright).toFixed(3)}`);
  t.throws(() => synthesizeHtsStream({ voicePath: VOICE_FILE, utterances, mgcOffset: [0, 50] }), /Expected a number between -10 and 10 for mgcOffset\[1\]/);
});

t.test('highpassHz removes the pulse train\'s DC offset and keeps the speech', async (t) => {
  const mean = (pcm) => pcm.reduce((a, v) => a + v, 0) / pcm.length;
  const raw = await render(LONG), hp = await render(LONG, { highpassHz: 10 });
  const a = stats(raw), b = stats(hp);
  // Measured: DC 0.14 × RMS without it (an all-positive pulse train), under 0.001 × RMS with it.
  t.ok(Math.abs(mean(raw)) > 0.05 * a.rms, `DC without: ${mean(raw).toFixed(1)} (RMS ${a.rms.toFixed(0)})`);
  t.ok(Math.abs(mean(hp)) < 0.01 * b.rms, `DC with: ${mean(hp).toFixed(1)} (RMS ${b.rms.toFixed(0)})`);
  t.equal(hp.length, raw.length, 'same length');
  t.ok(b.rms > 0.85 * a.rms && b.rms < a.rms, `the speech stays: RMS ${a.rms.toFixed(0)} → ${b.rms.toFixed(0)}`);
  t.throws(() => synthesizeHtsStream({ voicePath: VOICE_FILE, utterances: textToLabels(SHORT), highpassHz: 900 }), /Expected a number between 0 and 500 for highpassHz/);
});

t.test('synthesis from parameter streams: unchanged ones sound as the labels do', async (t) => {
  const utterances = textToLabels(LONG);
  const parameters = await htsParameters({ voicePath: VOICE_FILE, utterances });
  const fromLabels = await render(LONG);
  const stream = synthesizeHtsStream({ voicePath: VOICE_FILE, parameters, sampleRate: 24000 });
  const segmentEnds = [];
  const fromParams = await collect(stream, (info) => { if (info.segmentEnd) segmentEnds.push(info.segment); });
  const chunk = 0.2 * 24000; // the default chunkMs
  t.ok(Math.abs(fromParams.length - fromLabels.length) <= chunk, `same length: ${fromParams.length} vs ${fromLabels.length} samples`);
  // Measured: correlation 1 - 2e-11, RMS equal to 1e-7 (the float32 round trip moves samples by ≤ 1 LSB).
  const r = correlation(fromLabels, fromParams);
  const a = stats(fromLabels), b = stats(fromParams);
  t.ok(r > 0.999, `correlation ${r}`);
  t.ok(Math.abs(b.rms / a.rms - 1) < 0.01, `RMS ${b.rms.toFixed(1)} vs ${a.rms.toFixed(1)}`);
  t.same(segmentEnds, [0, 1], 'one segment per parameters entry');
});

t.test('synthesis from edited parameter streams: log F0 a fifth up raises the pitch 7 semitones', async (t) => {
  const parameters = await htsParameters({ voicePath: VOICE_FILE, utterances: textToLabels(LONG) });
  const fifth = Math.LN2 * (7 / 12);
  // Float64Array on purpose (both float arrays are accepted); NaN (unvoiced) stays NaN.
  const up = parameters.map((p) => ({ ...p, lf0: Float64Array.from(p.lf0, (v) => v + fifth) }));
  const base = await collect(synthesizeHtsStream({ voicePath: VOICE_FILE, parameters, sampleRate: 24000 }));
  const high = await collect(synthesizeHtsStream({ voicePath: VOICE_FILE, parameters: up, sampleRate: 24000 }));
  const semitones = 12 * Math.log2((await trackedMedianF0(high)) / (await trackedMedianF0(base)));
  t.ok(Math.abs(semitones - 7) <= 1, `median F0 rose ${semitones.toFixed(2)} semitones`);
  t.ok(Math.abs(high.length - base.length) <= 0.2 * 24000, 'same duration');
});

t.test('synthesis from parameter streams: bad ones give clear errors, and the engine keeps working', async (t) => {
  const [p] = await htsParameters({ voicePath: VOICE_FILE, utterances: [textToLabels(SHORT)[0]] });
  const start = (extra) => synthesizeHtsStream({ voicePath: VOICE_FILE, sampleRate: 24000, ...extra });
  t.throws(() => start({ parameters: [{ ...p, mgc: p.mgc.subarray(1) }] }), {
    code: 'SAWT_ENGINE_INVALID_ARGUMENT',
    message: `Expected ${p.frames * 35} values (frames ${p.frames} × dim 35) for parameters[0].mgc but received ${p.frames * 35 - 1}`,
  });
  t.throws(() => start({ parameters: [{ ...p, lf0: Array.from(p.lf0) }] }), { code: 'SAWT_ENGINE_INVALID_ARGUMENT', message: /Float32Array or Float64Array for parameters\[0\]\.lf0 but received an array/ });
  const nan = p.mgc.slice();
  nan[7] = NaN;
  t.throws(() => start({ parameters: [{ ...p, mgc: nan }] }), { code: 'SAWT_ENGINE_INVALID_ARGUMENT', message: /finite values for parameters\[0\]\.mgc but received NaN at index 7/ });
  t.throws(() => start({ parameters: [{ ...p, frames: 0 }] }), { code: 'SAWT_ENGINE_INVALID_ARGUMENT', message: /parameters\[0\]\.frames but received 0/ });
  t.throws(() => start({ parameters: [p], utterances: textToLabels(SHORT) }), { code: 'SAWT_ENGINE_INVALID_ARGUMENT', message: /exactly one of utterances \(labels\) and parameters \(streams\) for options but received both/ });
  t.throws(() => start({}), { code: 'SAWT_ENGINE_INVALID_ARGUMENT', message: /received neither/ });
  // Consistent in itself, but not the voice's: known once the voice is loaded; the stream fails before any audio.
  const narrow = { ...p, mgc: new Float32Array(p.frames * 34), dims: { ...p.dims, mgc: 34 } };
  let audio = 0;
  const wrongDims = start({ parameters: [narrow] });
  wrongDims.on('data', (c) => { audio += c.pcm.length; });
  await t.rejects(collect(wrongDims), {
    code: 'SAWT_ENGINE_INVALID_ARGUMENT',
    message: 'Expected dims {mgc: 35, lf0: 1, lpf: 31} (the voice\'s) for parameters[0].dims but received {mgc: 34, lf0: 1, lpf: 31}',
  });
  t.equal(audio, 0, 'no audio before the error');
  // lpf may be left out only for a voice without one; this voice has one.
  const { lpf: _lpf, dims: { lpf: _lpfDim, ...dims }, ...noLpf } = p;
  await t.rejects(collect(start({ parameters: [{ ...noLpf, dims }] })), { code: 'SAWT_ENGINE_INVALID_ARGUMENT', message: /received \{mgc: 35, lf0: 1\}$/ });
  const after = await collect(start({ parameters: [p] }));
  t.ok(stats(after).rms > 500, 'synthesis from parameters still works afterwards');
  t.ok(stats(await render(SHORT)).rms > 500, 'and from labels');
});

t.test('sawt-hts over the WebSocket: audio for each flush, billed at its price', async (t) => {
  const srv = await startServer(t, { config: wsConfig() });
  const owner = await srv.client({ balance: '10' });
  const c = await ready(srv, owner.key.key, { voice_id: 'fusha-sami', model_id: 'sawt-hts' });
  t.ok(c.messages.some((m) => m.type === 'connectionInitialized'), JSON.stringify(c.messages[0]));
  const text = 'مرحبا بكم في خدمة صوت للنطق العربي. نقدم لكم صوتا بشريا واضحا.';
  c.send({ type: 'text', text, flush: true });
  await c.until(() => c.audio().find((m) => m.isFinal));
  t.same(c.errors(), [], 'no errors');
  const bytes = c.pcmBytes();
  t.ok(bytes / 48000 > 2, `${(bytes / 48000).toFixed(2)} s of audio`);
  t.equal(c.audio()[0].sampleRate, 24000);
  c.send({ type: 'closeConnection' });
  t.equal(await c.closed, 1000);
  const b = await srv.balance(owner.account.id);
  t.equal(10_000_000 - b.balance, [...text].length * 200, 'characters × 0.0002');
  t.equal(b.reserved ?? 0, 0, 'nothing left reserved');
});

t.test('sawt-hts over HTTP with the bundled voice file; absent without it', async (t) => {
  const srv = await startServer(t);
  const { headers } = await srv.client();
  const models = await (await fetch(`${srv.api}/models`, { headers })).json();
  t.ok((models.models ?? models).some((m) => m.model_id === 'sawt-hts'), 'listed');
  for (const voice_id of ['fusha-ziad', 'fusha-sami']) {
    const res = await fetch(`${srv.api}/text-to-speech/sawt-hts`, { method: 'POST', headers, body: JSON.stringify({ voice_id, text: 'مرحبا بكم في خدمة صوت.', streaming: true, stability: 0.5 }) });
    t.equal(res.status, 200, `${voice_id}: status`);
    const buf = Buffer.from(await res.arrayBuffer());
    t.ok(buf.length > 24000, `${voice_id}: ${buf.length} bytes of audio`);
  }
  const bare = await startServer(t, withoutBundledModels());
  const c2 = await bare.client();
  const m2 = await (await fetch(`${bare.api}/models`, { headers: c2.headers })).json();
  t.notOk((m2.models ?? m2).some((m) => m.model_id === 'sawt-hts'), 'not listed without the file');
});
