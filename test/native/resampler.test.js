import t from 'tap';
import { rms, sine } from './helpers.js';

const { Resampler, resample } = await import('@sawt/native');

const zeroCrossings = (x) => {
  let n = 0;
  for (let i = 1; i < x.length; i++) if (x[i - 1] < 0 !== x[i] < 0) n++;
  return n;
};

t.test('a 1 kHz sine keeps its frequency and level through 22050 -> 24000', async (t) => {
  const out = resample(sine(1000, 22050, 22050), 22050, 24000);
  t.equal(out.length, 24000, 'one second in, one second out');
  const frequency = zeroCrossings(out) / 2; // over one second
  t.ok(Math.abs(frequency - 1000) < 2, `${frequency} Hz`);
  t.ok(Math.abs(rms(out, 1000, 23000) / 7071 - 1) < 0.01, 'level kept within 1%');
});

t.test('chunked processing equals one-shot processing', async (t) => {
  const input = sine(440, 22050, 30000);
  for (const outRate of [8000, 16000, 24000, 44100]) {
    const oneShot = resample(input, 22050, outRate);
    const resampler = new Resampler(22050, outRate);
    const pieces = [];
    const sizes = [1, 7, 100, 333, 4096, 13];
    for (let i = 0, k = 0; i < input.length; k++) {
      const n = sizes[k % sizes.length];
      pieces.push(resampler.process(input.subarray(i, i + n)));
      i += n;
    }
    pieces.push(resampler.flush());
    const chunked = Buffer.concat(pieces.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
    t.ok(chunked.equals(Buffer.from(oneShot.buffer)), `22050 -> ${outRate}: ${oneShot.length} samples, identical`);
  }
});

t.test('a tone above the output Nyquist is filtered out, not aliased', async (t) => {
  const tone = sine(6000, 22050, 22050); // would alias to 2 kHz at 8000 Hz
  const out = resample(tone, 22050, 8000);
  const attenuationDb = 20 * Math.log10(Math.max(1, rms(out, 200, out.length - 200)) / rms(tone));
  t.ok(attenuationDb < -60, `6 kHz attenuated by ${-attenuationDb.toFixed(0)} dB`);
  const passband = resample(sine(1000, 22050, 22050), 22050, 8000);
  t.ok(Math.abs(rms(passband, 200, passband.length - 200) / 7071 - 1) < 0.01, '1 kHz passes at 8000 Hz');
});

t.test('flush() resets the resampler for a new stream', async (t) => {
  const input = sine(300, 16000, 1600);
  const resampler = new Resampler(16000, 24000);
  const first = [...resampler.process(input), ...resampler.flush()];
  const second = [...resampler.process(input), ...resampler.flush()];
  t.same(second, first);
  t.equal(first.length, 2400);
});

t.test('bad rates and samples are rejected', async (t) => {
  t.throws(() => new Resampler(22050, 0), { code: 'SAWT_ENGINE_INVALID_ARGUMENT', message: /for outRate but received 0/ });
  t.throws(() => new Resampler(22050.5, 8000), { code: 'SAWT_ENGINE_INVALID_ARGUMENT' });
  t.throws(() => new Resampler(22050, 8000).process([1, 2, 3]), { message: /Expected an Int16Array for samples/ });
});
