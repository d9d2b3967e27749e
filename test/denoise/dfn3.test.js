// DeepFilterNet3 back end (native engine, ONNX Runtime) over real HTTP: refuses
// to start without its model files; on the shared 0 dB noisy clip the output is a
// valid WAV at the input's rate and channels, exactly as long, and its SI-SDR
// against the clean clip improves by a floor; a stereo 44.1 kHz MP3 keeps its
// rate and channel count.
import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, parseWav, tempDir } from '../helpers/server.js';
import { configWith, denoise, denoiseSharedClip, hasShared, makeAudio, noiseDir, shared, siSdr } from './helpers.js';

const sharedModels = path.join(shared, 'models');
const dfn3Dir = path.join(sharedModels, 'denoise/dfn3');
const haveModel = ['enc.onnx', 'erb_dec.onnx', 'df_dec.onnx'].every((f) => existsSync(path.join(dfn3Dir, f)));
const skipModel = !haveModel ? `${dfn3Dir} (enc.onnx, erb_dec.onnx, df_dec.onnx) is absent` : false;

t.test('dfn3 without its model files: the server refuses to start and names the directory', async (t) => {
  const modelsDir = tempDir(t, 'sawt-no-models-');
  const dir = path.join(modelsDir, 'denoise/dfn3');
  await t.rejects(startServer(t, { config: await configWith({ backend: 'dfn3' }), runtime: { modelsDir } }),
    { message: new RegExp(`backend 'dfn3' needs its model files in ${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(missing enc\\.onnx`) });
});

t.test('dfn3: valid WAV at the input rate, exactly as long as the input, SI-SDR improves by at least 10 dB', { skip: !hasShared ? `${noiseDir} is absent` : skipModel }, async (t) => {
  const { clean, noisy, status, wav, out } = await denoiseSharedClip(t, 'dfn3', { modelsDir: sharedModels });
  t.equal(status, 200);
  t.same(wav.fmt, { format: 1, channels: 1, sampleRate: 48000, bitsPerSample: 16 }, 'PCM16 at the input rate');
  t.equal(out.length, noisy.length, 'output exactly as long as the input');
  const before = siSdr(clean, noisy);
  const after = siSdr(clean, out);
  t.comment(`SI-SDR ${before.toFixed(2)} → ${after.toFixed(2)} dB (+${(after - before).toFixed(2)})`);
  // Measured +13.9 dB (6.05 → 19.97 dB) through the server.
  t.ok(after - before >= 10, `improvement ${(after - before).toFixed(2)} dB ≥ 10 dB`);
});

t.test('dfn3: a stereo 44.1 kHz MP3 comes back as stereo 44.1 kHz PCM16 of its duration', { skip: skipModel }, async (t) => {
  const dir = tempDir(t, 'sawt-dfn3-');
  const file = makeAudio(path.join(dir, 'in.mp3'), { seconds: 3, rate: 44100, channels: 2 });
  const srv = await startServer(t, { config: await configWith({ backend: 'dfn3' }), runtime: { modelsDir: sharedModels } });
  const { key } = await srv.client({ plan: 'enterprise', balance: '10' });
  const r = await denoise(srv.api, key.key, readFileSync(file), 'in.mp3');
  t.equal(r.status, 200);
  const wav = parseWav(r.body);
  t.same(wav.fmt, { format: 1, channels: 2, sampleRate: 44100, bitsPerSample: 16 });
  const frames = wav.data.length / 4;
  t.ok(Math.abs(frames - 3 * 44100) <= 2400, `about 3 s of audio (${frames} frames)`);
});
