import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { tinyAddModel } from './tiny-onnx.js';

const { OnnxSession, availableProviders } = await import('@sawt/native');

const dir = await mkdtemp(join(tmpdir(), 'sawt-onnx-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const modelPath = join(dir, 'tiny.onnx');
await writeFile(modelPath, tinyAddModel());

const feeds = (x = new Float32Array([1, 2, 3, 4.5, -5, 6])) => ({
  X: { type: 'float32', dims: [x.length / 3, 3], data: x },
  K: { type: 'int64', dims: [2], data: new BigInt64Array([20n, -7n]) },
});

t.test('a tiny model loads with its names, types, dims and metadata', async (t) => {
  const session = await OnnxSession.create(modelPath, { executionProvider: 'cpu', intraOpThreads: 1 });
  t.teardown(() => session.release());
  t.same(session.inputNames, ['X', 'K']);
  t.same(session.outputNames, ['Y', 'J']);
  t.same(session.inputs, [{ name: 'X', type: 'float32', dims: [-1, 3] }, { name: 'K', type: 'int64', dims: [2] }]);
  t.same(session.outputs, [{ name: 'Y', type: 'float32', dims: [-1, 3] }, { name: 'J', type: 'int64', dims: [2] }]);
  t.same(session.metadata, { author: 'sawt-test' });
});

t.test('run computes the numbers off the main thread', async (t) => {
  const session = await OnnxSession.create(modelPath);
  t.teardown(() => session.release());
  const out = await session.run(feeds());
  t.same(out.Y, { type: 'float32', dims: [2, 3], data: new Float32Array([2, 4, 6, 9, -10, 12]) });
  t.same(out.J, { type: 'int64', dims: [2], data: new BigInt64Array([40n, -14n]) });
  const onlyJ = await session.run(feeds(), ['J']);
  t.same(Object.keys(onlyJ), ['J'], 'outputNames selects outputs');
  const many = await Promise.all(Array.from({ length: 12 }, (_, i) => session.run(feeds(new Float32Array(3).fill(i)))));
  t.same(many.map((r) => r.Y.data[0]), Array.from({ length: 12 }, (_, i) => 2 * i), 'concurrent runs all answer');
});

t.test('a model given as bytes (e.g. rewritten at load) runs as the same file does', async (t) => {
  const session = await OnnxSession.create(tinyAddModel(), { intraOpThreads: 1 });
  t.teardown(() => session.release());
  t.same(session.inputNames, ['X', 'K']);
  t.same((await session.run(feeds())).Y.data, new Float32Array([2, 4, 6, 9, -10, 12]));
  await t.rejects(OnnxSession.create(new Uint8Array(0)), { code: 'SAWT_ENGINE_INVALID_ARGUMENT' }, 'no bytes: a clear error');
  await t.rejects(OnnxSession.create(new Uint8Array([1, 2, 3])), { code: 'SAWT_ENGINE_ONNX', message: /Failed to load ONNX model \(3 bytes in memory\)/ }, 'bytes that are no model');
});

t.test('invalid feeds reject with a clear message before the native call', async (t) => {
  const session = await OnnxSession.create(modelPath);
  t.teardown(() => session.release());
  const invalid = (message) => ({ code: 'SAWT_ENGINE_INVALID_ARGUMENT', message });
  const { X, K } = feeds();
  await t.rejects(session.run({ X }), invalid(/for feeds\["K"\] but received undefined/));
  await t.rejects(session.run({ X, K, Z: K }), invalid(/Expected one of X, K for a feed name but received 'Z'/));
  await t.rejects(session.run({ X: { ...X, data: new Float64Array(6) }, K }), invalid(/Expected a Float32Array for feeds\["X"\]\.data/));
  await t.rejects(session.run({ X: { ...X, type: 'int32' }, K }), invalid(/Expected type float32/));
  await t.rejects(session.run({ X: { ...X, dims: [3, 3] }, K }), invalid(/Expected 9 elements \(dims \[3, 3\]\) for feeds\["X"\]\.data but received 6 elements/));
  await t.rejects(session.run({ X: { ...X, dims: [3, 2] }, K }), invalid(/Expected dims matching \[-1, 3\]/));
  await t.rejects(session.run(feeds(), ['nope']), invalid(/for outputNames\[\]/));
  session.release();
  await t.rejects(session.run(feeds()), invalid(/released/));
});

t.test("executionProvider 'cuda' rejects with SAWT_ENGINE_CUDA_UNAVAILABLE where CUDA is missing", async (t) => {
  t.ok(availableProviders().includes('CPUExecutionProvider'));
  try {
    const session = await OnnxSession.create(modelPath, { executionProvider: 'cuda' });
    session.release();
    t.pass('CUDA is usable on this machine');
  } catch (error) {
    t.equal(error.code, 'SAWT_ENGINE_CUDA_UNAVAILABLE');
    t.match(error.message, /^CUDA execution provider is not available: /);
  }
  await t.rejects(OnnxSession.create(modelPath, { executionProvider: 'tpu' }), { code: 'SAWT_ENGINE_INVALID_ARGUMENT' });
});

t.test('a file that is not a model rejects with SAWT_ENGINE_ONNX', async (t) => {
  const bad = join(dir, 'bad.onnx');
  await writeFile(bad, 'not a model');
  const error = await OnnxSession.create(bad).catch((e) => e);
  t.equal(error.code, 'SAWT_ENGINE_ONNX');
  t.match(error.stack, /onnx\.test\.js/, 'stack points at the caller');
});

const tashkeel = fileURLToPath(new URL('../../models/tashkeel/libtashkeel-2024-01-04.onnx', import.meta.url));
t.test('the (bundled) libtashkeel model loads and runs', async (t) => {
  const session = await OnnxSession.create(tashkeel, { intraOpThreads: 1 });
  t.teardown(() => session.release());
  t.same(session.inputs, [
    { name: 'char_inputs', type: 'int64', dims: [-1, -1] },
    { name: 'input_lengths', type: 'int64', dims: [-1] },
  ]);
  const out = await session.run({
    char_inputs: { type: 'int64', dims: [1, 4], data: new BigInt64Array([5n, 6n, 7n, 8n]) },
    input_lengths: { type: 'int64', dims: [1], data: new BigInt64Array([4n]) },
  });
  t.same(out.output.dims, [1, 4]);
  t.equal(out.output.type, 'uint8');
});
