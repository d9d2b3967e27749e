// Zero-copy outputs (synthesis chunks, ONNX tensors) must be freed once JS drops
// them: many runs in a child process started with --expose-gc. Synthesis chunks
// are counted by the addon (pcmInFlight): after a collection none may be left.
// RSS is compared after a warm-up and after the runs, as a net for native leaks
// the count cannot see. It is noisy: glibc's per-thread arenas keep freed space,
// and the same script (one sentence synthesized 12,000 times) ended at 126, 255,
// 289 or 353 MB from run to run, in steps, while the count stayed at zero; a CI
// run rose 155 MB over 1,200 runs. A leak of the audio itself adds all of
// producedMb, so the line is drawn there.
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { NATIVE } from './helpers.js';

const child = `
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
const { nativeAddon, OnnxSession, pcmInFlight } = await import(${JSON.stringify(pathToFileURL(NATIVE).href)});
const { tinyAddModel } = await import(${JSON.stringify(new URL('./tiny-onnx.js', import.meta.url).href)});
const settle = () => new Promise((resolve) => setImmediate(resolve));
async function rssMb() {
  for (let i = 0; i < 3; i++) { globalThis.gc(); await settle(); }
  return process.memoryUsage().rss / 2 ** 20;
}
const text = 'ذَهَبَ الوَلَدُ إِلى المَدْرَسَةِ في الصَّباحِ الباكِرِ.';
const synthesize = () => new Promise((resolve, reject) => {
  let bytes = 0;
  nativeAddon().createSynthesis({ segments: [text], voice: 'ar', rate: 175, pitch: 50, range: 50, sampleRate: 24000 },
    (err, chunk, info) => { if (chunk) bytes += chunk.length; if (info.final) (err ? reject(err) : resolve(bytes)); });
});
const dir = await mkdtemp(join(tmpdir(), 'sawt-mem-'));
await writeFile(join(dir, 'tiny.onnx'), tinyAddModel());
const session = await OnnxSession.create(join(dir, 'tiny.onnx'), { intraOpThreads: 1 });
const x = new Float32Array(100000);
const run = () => session.run({ X: { type: 'float32', dims: [x.length / 3 | 0, 3], data: x.subarray(0, (x.length / 3 | 0) * 3) },
                                K: { type: 'int64', dims: [2], data: new BigInt64Array(2) } });
const result = {};
for (const [name, job, warmup, count] of [['synthesis', synthesize, 3200, 1200], ['onnx', run, 100, 2000]]) {
  let bytes = 0;
  for (let i = 0; i < warmup; i++) await job();
  const before = await rssMb();
  for (let i = 0; i < count; i++) { const r = await job(); bytes += typeof r === 'number' ? r : r.Y.data.byteLength; }
  result[name] = { before, after: await rssMb(), producedMb: bytes / 2 ** 20, live: pcmInFlight() };
}
session.release();
console.log(JSON.stringify(result));
`;

t.test('buffers handed to JS without a copy are freed after gc', async (t) => {
  // Without tap's loaders and coverage hooks, which have memory of their own.
  const { NODE_OPTIONS, NODE_V8_COVERAGE, ...env } = process.env;
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--input-type=module', '-e', child], {
    env,
    timeout: 240000,
  });
  const result = JSON.parse(stdout.trim().split('\n').at(-1));
  t.same(result.synthesis.live, { chunks: 0, bytes: 0 }, 'every synthesis chunk freed after gc');
  for (const [name, { before, after, producedMb }] of Object.entries(result)) {
    t.ok(producedMb > 150, `${name}: ${producedMb.toFixed(0)} MB handed to JS`);
    const limit = producedMb;
    t.ok(after - before < limit, `${name}: RSS ${before.toFixed(0)} -> ${after.toFixed(0)} MB (limit +${limit.toFixed(0)} MB)`);
  }
});
