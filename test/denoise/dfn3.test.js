// DeepFilterNet3 back end (native engine, ONNX Runtime; the default, its models
// bundled) over real HTTP: refuses to start without its model files; an operator's
// file in SAWT_MODELS_DIR takes the bundled one's place; on the shared 0 dB noisy
// clip the output is a valid WAV at the input's rate and channels, exactly as long,
// and its SI-SDR against the clean clip improves by a floor; a stereo 44.1 kHz MP3
// keeps its rate and channel count.
import t from 'tap';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, parseWav, tempDir } from '../helpers/server.js';
import { configWith, denoise, denoiseSharedClip, hasShared, makeAudio, noiseDir, pcm16, siSdr } from './helpers.js';

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

t.test('dfn3 is the default back end', async (t) => {
  const cfg = JSON.parse(readFileSync(new URL('../../config/default.json', import.meta.url), 'utf8'));
  t.equal(cfg.plugins.find((p) => p.resolve === '@sawt/plugin-denoise').options.backend, 'dfn3');
});

t.test('dfn3 without its model files (none in SAWT_MODELS_DIR, no bundle): the server refuses to start and names them', async (t) => {
  const modelsDir = tempDir(t, 'sawt-no-models-');
  await t.rejects(startServer(t, { config: await configWith({ backend: 'dfn3' }), runtime: { modelsDir, bundledModelsDir: null } }),
    { message: new RegExp(`backend 'dfn3' needs its model files \\(missing ${escape(path.join(modelsDir, 'denoise/dfn3/enc.onnx'))}, `) });
});

t.test('an enc.onnx in SAWT_MODELS_DIR is used instead of the bundled one (a broken one stops the start, named)', async (t) => {
  const modelsDir = tempDir(t, 'sawt-own-models-');
  mkdirSync(path.join(modelsDir, 'denoise/dfn3'), { recursive: true });
  const own = path.join(modelsDir, 'denoise/dfn3/enc.onnx');
  writeFileSync(own, 'not a model');
  await t.rejects(startServer(t, { config: await configWith({ backend: 'dfn3' }), runtime: { modelsDir } }),
    { message: new RegExp(`Failed to load DeepFilterNet3 model ${escape(own)}`) });
});

t.test('dfn3: valid WAV at the input rate, exactly as long as the input, SI-SDR improves by at least 10 dB', { skip: !hasShared && `${noiseDir} is absent` }, async (t) => {
  const { clean, noisy, status, wav, out } = await denoiseSharedClip(t, 'dfn3');
  t.equal(status, 200);
  t.same(wav.fmt, { format: 1, channels: 1, sampleRate: 48000, bitsPerSample: 16 }, 'PCM16 at the input rate');
  t.equal(out.length, noisy.length, 'output exactly as long as the input');
  const before = siSdr(clean, noisy);
  const after = siSdr(clean, out);
  t.comment(`SI-SDR ${before.toFixed(2)} → ${after.toFixed(2)} dB (+${(after - before).toFixed(2)})`);
  // Measured +13.8 dB (6.05 → 19.81 dB) through the server (19.97 before the features' level normalization).
  t.ok(after - before >= 10, `improvement ${(after - before).toFixed(2)} dB ≥ 10 dB`);
});

t.test('dfn3: a stereo 44.1 kHz MP3 comes back as stereo 44.1 kHz PCM16 of its duration', async (t) => {
  const dir = tempDir(t, 'sawt-dfn3-');
  const file = makeAudio(path.join(dir, 'in.mp3'), { seconds: 3, rate: 44100, channels: 2 });
  const srv = await startServer(t);
  const { key } = await srv.client({ plan: 'enterprise', balance: '10' });
  const r = await denoise(srv.api, key.key, readFileSync(file), 'in.mp3');
  t.equal(r.status, 200);
  const wav = parseWav(r.body);
  t.same(wav.fmt, { format: 1, channels: 2, sampleRate: 44100, bitsPerSample: 16 });
  const frames = wav.data.length / 4;
  t.ok(Math.abs(frames - 3 * 44100) <= 2400, `about 3 s of audio (${frames} frames)`);
});

t.test('dfn3 engine without level normalization reproduces the enhance.py of DeepFilterNet on its test clip (SI-SDR 20.0149 dB)', { skip: !hasShared && `${noiseDir} is absent` }, async (t) => {
  // DeepFilterNet/df/scripts/test_df.py: TARGET_METRICS.DeepFilterNet3.sdr on assets/noisy_snr0.wav against
  // clean_freesound_33711.wav (the shared clip pair). A feature, framing or deep-filter slip moves it by tenths.
  const { Dfn3Model, DFN3_FILES } = await import('@sawt/native');
  const dir = new URL('../../models/denoise/dfn3/', import.meta.url).pathname;
  const files = Object.fromEntries(Object.entries(DFN3_FILES).map(([k, f]) => [k, path.join(dir, f)]));
  const model = await Dfn3Model.load(files, { normalizeLevel: false, snrBlend: false });
  const f32 = (name) => Float32Array.from(pcm16(parseWav(readFileSync(path.join(noiseDir, name))).data), (v) => v / 32768);
  const clean = f32('clean_speech_en.wav');
  const y = await model.openStream().process(f32('noisy_speech_en_snr0.wav'), true);
  const sdr = siSdr(clean, y);
  t.comment(`SI-SDR ${sdr.toFixed(4)} dB (enhance.py: 20.0149 dB)`);
  t.ok(Math.abs(sdr - 20.0149) <= 0.05, `within 0.05 dB of the reference (${sdr.toFixed(4)})`);
});
