// Denoise quality floor over real HTTP: the shared 0 dB noisy speech clip is
// uploaded and the output's SI-SDR against the clean clip must improve by a floor.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, parseWav } from '../helpers/server.js';
import { configWith, denoise, hasShared, noiseDir, pcm16, siSdr } from './helpers.js';

if (!hasShared) {
  t.skip(`quality floor: ${noiseDir} is absent (the shared test data lives in ../shared next to the repo)`);
} else {
  const clean = pcm16(parseWav(readFileSync(path.join(noiseDir, 'clean_speech_en.wav'))).data);
  const noisyFile = readFileSync(path.join(noiseDir, 'noisy_speech_en_snr0.wav'));
  const noisy = pcm16(parseWav(noisyFile).data);
  const before = siSdr(clean, noisy);

  // RNNoise measured +9.3 dB on this clip; the floor leaves room for resampling changes.
  t.test('rnnoise: SI-SDR improves by at least 6 dB on the 0 dB noisy clip', async (t) => {
    const srv = await startServer(t, { config: await configWith({ backend: 'rnnoise' }) });
    const { key } = await srv.client({ plan: 'enterprise', balance: '10' });
    const r = await denoise(srv.api, key.key, noisyFile, 'noisy.wav');
    t.equal(r.status, 200);
    const wav = parseWav(r.body);
    t.equal(wav.fmt.sampleRate, 48000);
    const out = pcm16(wav.data);
    t.equal(out.length, noisy.length, 'output as long as the input');
    const after = siSdr(clean, out);
    t.comment(`SI-SDR ${before.toFixed(2)} → ${after.toFixed(2)} dB (+${(after - before).toFixed(2)})`);
    t.ok(after - before >= 6, `improvement ${(after - before).toFixed(2)} dB ≥ 6 dB`);
  });
}
