// Denoise quality over real HTTP: the shared 0 dB noisy speech clip is
// uploaded and the output's SI-SDR against the clean clip must improve by a floor
// (RNNoise; GTCRN with the shared model, the models dir pointed at ../shared/models).
import t from 'tap';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseWav, startServer, tempDir } from '../helpers/server.js';
import { configWith, denoise, denoiseSharedClip, hasShared, noiseDir, pcm16, shared, siSdr } from './helpers.js';

const sharedModels = path.join(shared, 'models');
const gtcrnModel = path.join(sharedModels, 'denoise/gtcrn/gtcrn_simple.onnx');

t.test('gtcrn without its model file: the server refuses to start and says where the file should be', async (t) => {
  const modelsDir = tempDir(t, 'sawt-no-models-');
  await t.rejects(startServer(t, { config: await configWith({ backend: 'gtcrn' }), runtime: { modelsDir } }),
    { message: new RegExp(`backend 'gtcrn' needs its model at ${modelsDir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/denoise/gtcrn/gtcrn_simple\\.onnx`) });
});

if (!hasShared) {
  t.skip(`quality floor: ${noiseDir} is absent (the shared test data lives in ../shared next to the repo)`);
} else {
  // RNNoise measured +9.3 dB on this clip; the floor leaves room for resampling changes.
  t.test('rnnoise: SI-SDR improves by at least 6 dB on the 0 dB noisy clip', async (t) => {
    const { clean, noisy, status, wav, out } = await denoiseSharedClip(t, 'rnnoise');
    t.equal(status, 200);
    t.equal(wav.fmt.sampleRate, 48000);
    t.equal(out.length, noisy.length, 'output as long as the input');
    const before = siSdr(clean, noisy);
    const after = siSdr(clean, out);
    t.comment(`SI-SDR ${before.toFixed(2)} → ${after.toFixed(2)} dB (+${(after - before).toFixed(2)})`);
    t.ok(after - before >= 6, `improvement ${(after - before).toFixed(2)} dB ≥ 6 dB`);
  });
}

t.test('gtcrn (16 kHz streaming ONNX): valid WAV at the input rate, as long as the input, SI-SDR improves', { skip: !hasShared ? `${noiseDir} is absent` : !existsSync(gtcrnModel) ? `${gtcrnModel} is absent` : false }, async (t) => {
  const { clean, noisy, status, wav, out } = await denoiseSharedClip(t, 'gtcrn', { modelsDir: sharedModels });
  t.equal(status, 200);
  t.same(wav.fmt, { format: 1, channels: 1, sampleRate: 48000, bitsPerSample: 16 }, 'PCM16 at the input rate');
  // 48 → 16 → 48 kHz through ffmpeg's resampler: the length may differ by a few samples.
  t.ok(Math.abs(out.length - noisy.length) <= 480, `output as long as the input (${out.length} vs ${noisy.length} samples)`);
  const before = siSdr(clean, noisy);
  const after = siSdr(clean, out);
  t.comment(`SI-SDR ${before.toFixed(2)} → ${after.toFixed(2)} dB (+${(after - before).toFixed(2)})`);
  // Measured +3.3 dB at 16 kHz (the README's "+3 dB"), +2.2 dB here against the full-band 48 kHz clean clip.
  t.ok(after - before >= 1.5, `improvement ${(after - before).toFixed(2)} dB ≥ 1.5 dB`);
});

// Issue 34 item 6, on Arabic speech (bench/denoise-mixes.js: one speaker's keyword clips joined,
// the other speaker's clips in 4 overlapping streams as babble, seeded pink noise, or a recorded
// impulsive noise), 4 s mixes uploaded as 16 kHz WAV to the default back end (DFN3) or to DFN3
// with its speech guard off. bench:denoise-quality has the full figures.
const { conditions, hasCommands, commandsDir, siSdr: siSdrF, wavPcm16 } = await import('../../bench/denoise-mixes.js');

async function denoiseMixes(t, mixes, denoiseOptions) {
  const srv = await startServer(t, denoiseOptions ? { config: await configWith(denoiseOptions) } : {});
  const { key } = await srv.client({ plan: 'enterprise', balance: '10' });
  const out = [];
  for (const m of mixes) {
    const r = await denoise(srv.api, key.key, wavPcm16(m.noisy), 'mix.wav');
    t.equal(r.status, 200);
    const y = Float32Array.from(pcm16(parseWav(r.body).data), (v) => v / 32768);
    const before = siSdrF(m.clean, m.noisy), after = siSdrF(m.clean, y);
    t.comment(`${m.speaker} ${m.kind} ${m.snr} dB${m.quiet ? ' (quiet)' : ''}: SI-SDR ${before.toFixed(2)} → ${after.toFixed(2)} dB (${after - before >= 0 ? '+' : ''}${(after - before).toFixed(2)})`);
    out.push({ ...m, improvement: after - before });
  }
  return out;
}

const noCommands = !hasCommands && `${commandsDir} is absent`;
const hasRecorded = existsSync(path.join(shared, 'testdata/noise/noise_freesound.wav'));

t.test('dfn3: a quiet recording (speech near -45 dBFS) in pink noise is cleaned as well as a loud one', { skip: noCommands }, async (t) => {
  // Before the features were level-normalized, the same 0 dB mix 26 dB down came out 10 dB worse than it went in.
  const [m] = conditions({ clips: 4, kinds: ['pink'], snrs: [0], targets: ['00000010'] });
  const k = 10 ** (-26 / 20);
  const [loud, quiet] = await denoiseMixes(t, [m, { ...m, quiet: true, clean: m.clean.map((v) => v * k), noisy: m.noisy.map((v) => v * k) }]);
  t.ok(quiet.improvement >= 8, `quiet mix improves by ${quiet.improvement.toFixed(2)} dB ≥ 8 dB`);
  t.ok(Math.abs(quiet.improvement - loud.improvement) <= 1, `within 1 dB of the loud mix (${loud.improvement.toFixed(2)} dB)`);
});

// 12 s mixes: on these DFN3 alone loses SI-SDR on speaker 00000010's (-1.6 dB), while on 4 s
// mixes it happened to gain, so a test on those could not tell the guard gone.
const babbleMixes = (targets) => conditions({ clips: 12, kinds: ['babble'], snrs: [0, 5], targets });

t.test('dfn3: babble (another talker) at 0 and 5 dB is never made worse, for either target speaker', { skip: noCommands }, async (t) => {
  for (const m of await denoiseMixes(t, babbleMixes())) {
    t.ok(m.improvement >= 0, `${m.speaker} ${m.snr} dB: improvement ${m.improvement.toFixed(2)} dB ≥ 0`);
  }
});

t.test('dfn3 with its speech guard off (DeepFilterNet3 as enhance.py runs it) makes babble worse: what the guard is for', { skip: noCommands }, async (t) => {
  const worse = (await denoiseMixes(t, babbleMixes(['00000010']), { backend: 'dfn3', speechGuard: false })).filter((m) => m.improvement < 0);
  t.ok(worse.length > 0, `${worse.length} of 2 babble mixes come out worse without the guard`);
});

// At 20 dB SNR the model's own distortion of the speech outweighs the noise it removes (alone it
// lost 1.8 dB on pink and 2.8 dB on babble here); the high-SNR blend gives the input back its share.
// Where it gives all of it back, the input comes out again through 48 kHz and PCM16: -0.05 dB allows that.
t.test('dfn3: a clean-ish recording (babble and pink at 20 dB SNR) is not made worse', { skip: noCommands }, async (t) => {
  for (const m of await denoiseMixes(t, conditions({ clips: 12, kinds: ['babble', 'pink'], snrs: [20], targets: ['00000010'] }))) {
    t.ok(m.improvement >= -0.05, `${m.kind}: improvement ${m.improvement.toFixed(2)} dB ≥ -0.05 dB`);
  }
});

t.test('dfn3 with the high-SNR blend off makes a 20 dB pink mix worse: what the blend is for', { skip: noCommands }, async (t) => {
  const [m] = await denoiseMixes(t, conditions({ clips: 12, kinds: ['pink'], snrs: [20], targets: ['00000010'] }), { backend: 'dfn3', snrBlend: false });
  t.ok(m.improvement < 0, `improvement ${m.improvement.toFixed(2)} dB < 0 without the blend`);
});

t.test('dfn3: the speech guard leaves impulsive noise to the model (recorded noise at 0 dB gains at least 10 dB)', { skip: noCommands || (!hasRecorded && 'the shared recorded noises are absent') }, async (t) => {
  for (const m of await denoiseMixes(t, conditions({ clips: 4, kinds: ['freesound'], snrs: [0], targets: ['00000010'] }))) {
    t.ok(m.improvement >= 10, `${m.speaker}: improvement ${m.improvement.toFixed(2)} dB ≥ 10 dB`);
  }
});

t.test('dfn3: pink noise at 0 dB improves by at least 12 dB', { skip: noCommands, todo: "issue 34 item 6: not reached with DeepFilterNet3 as DeepFilterNet runs it (this engine matches its enhance.py within 0.02 dB). Measured +11.7/+10.9 (speaker 00000010) and +9.5/+9.4 dB (00000003) on 12 s mixes; 00000003's own recordings carry background noise (DFN3 on the clean clips alone scores 12.6 dB SI-SDR, a ceiling for any denoiser that removes it); on DeepFilterNet's studio-clean English clip (ceiling 33.5 dB) pink at 0 dB also gains +11.6 dB" }, async (t) => {
  for (const m of await denoiseMixes(t, conditions({ clips: 4, kinds: ['pink'], snrs: [0] }))) {
    t.ok(m.improvement >= 12, `${m.speaker}: improvement ${m.improvement.toFixed(2)} dB ≥ 12 dB`);
  }
});
