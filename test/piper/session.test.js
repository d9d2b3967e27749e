// The native Piper session on the tiny stand-in voice (random weights: its audio is noise, its
// I/O and length arithmetic are Piper's): output lengths, scales, resampling, cancel, bad models.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { ENGINE } from '../native/helpers.js';
import { tinyAddModel } from '../native/tiny-onnx.js';
import { STANDIN } from './helpers.js';

const { PiperSession } = await import(ENGINE);

const session = await PiperSession.create(join(STANDIN, 'ar_JO-standin-tiny.onnx'), { intraOpThreads: 1 });
t.teardown(() => session.release());
const ids = (n) => BigInt64Array.from({ length: n }, (_, i) => BigInt(i % 2 ? 0 : 14 + (i % 40)));
const exact = { noiseScale: 0, lengthScale: 1, noiseW: 0, inRate: 22050, outRate: 22050 };

t.test('the stand-in loads with Piper inputs and no speaker input', async (t) => {
  t.same(session.inputNames, ['input', 'input_lengths', 'scales']);
  t.equal(session.hasSid, false);
});

t.test('without noise each id lasts 512 samples; more ids and a larger length_scale give more audio', async (t) => {
  const a = await session.synthesize(ids(21), exact);
  t.equal(a.samples, 512 * 21);
  t.equal(a.pcm.length, 512 * 21);
  const b = await session.synthesize(ids(61), exact);
  t.equal(b.samples, 512 * 61);
  const slow = await session.synthesize(ids(21), { ...exact, lengthScale: 2 });
  t.equal(slow.samples, 2 * 512 * 21, 'length_scale 2 doubles every duration (ceil(1.94 · 2) = 4 frames)');
  // Piper's peak normalisation: the loudest sample is at full scale.
  t.equal(Math.max(...a.pcm.map(Math.abs)), 32767);
});

t.test('resampled to the requested rate with the sentence silence appended', async (t) => {
  const r = await session.synthesize(ids(21), { ...exact, outRate: 24000, silenceMs: 200 });
  t.equal(r.samples, 512 * 21);
  t.equal(r.pcm.length, Math.ceil((512 * 21 * 24000) / 22050) + 4800);
  t.same([...r.pcm.subarray(r.pcm.length - 4800)].filter((x) => x !== 0), [], 'the tail is silence');
});

t.test('cancel(tag) terminates the run in flight and the queued ones', async (t) => {
  const before = session.stats();
  const long = ids(399);
  const runs = [1, 2, 3, 4].map(() => session.synthesize(long, { ...exact, tag: 42 }));
  const other = session.synthesize(ids(11), { ...exact, tag: 43 });
  await new Promise((r) => setTimeout(r, 5));
  session.cancel(42);
  const settled = await Promise.allSettled(runs);
  t.same(settled.map((s) => s.status), ['rejected', 'rejected', 'rejected', 'rejected']);
  t.same([...new Set(settled.map((s) => s.reason.code))], ['SAWT_ENGINE_CANCELLED']);
  t.equal((await other).samples, 512 * 11, 'a run of another tag is untouched');
  const after = session.stats();
  t.equal(after.pending, 0);
  t.equal(after.terminated + after.skipped - before.terminated - before.skipped, 4, 'no cancelled run finished its work');
});

t.test('a model whose inputs are not Piper\'s fails at load, naming what it has', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'sawt-piper-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await writeFile(join(dir, 'add.onnx'), tinyAddModel());
  await t.rejects(PiperSession.create(join(dir, 'add.onnx')), {
    code: 'SAWT_ENGINE_ONNX',
    message: /is not a Piper voice: unexpected input 'X'; the model has inputs X, K/,
  });
  await t.rejects(PiperSession.create(join(dir, 'missing.onnx')), { code: 'SAWT_ENGINE_ONNX', message: /Failed to load Piper voice/ });
});

t.test('bad arguments are refused before any work', async (t) => {
  await t.rejects(session.synthesize(new Int32Array(3), exact), { code: 'SAWT_ENGINE_INVALID_ARGUMENT' });
  await t.rejects(session.synthesize(ids(5), { ...exact, lengthScale: -1 }), { code: 'SAWT_ENGINE_INVALID_ARGUMENT' });
});
