// ONNX runs (OnnxSession, Piper, DFN3) execute on the addon's own threads, niced 5 above the
// JavaScript thread, and so do ONNX Runtime's intra-op threads: on busy cores they yield to the
// event loop, and libuv's pool (file reads, database queries) never waits behind them. In a child
// process with a libuv pool of 2 threads: were the runs on that pool, the 2 in flight would hold it.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import t from 'tap';
import { STANDIN } from '../piper/helpers.js';
import { NATIVE } from './helpers.js';

const IDS = 1500;
// (in each child) name and nice value (field 19 of /proc/<pid>/task/<tid>/stat) of every thread of the process
const THREADS = `const threads = () => readdirSync('/proc/self/task').flatMap((tid) => {
  try {
    const stat = readFileSync('/proc/self/task/' + tid + '/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return [{ tid: Number(tid), name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), nice: Number(fields[16]) }];
  } catch { return []; }
});`;
const child = `
import { readFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
const { PiperSession } = await import(${JSON.stringify(pathToFileURL(NATIVE).href)});
const sqlite3 = (await import('sqlite3')).default;
const db = await new Promise((resolve, reject) => { const d = new sqlite3.Database(':memory:', (e) => (e ? reject(e) : resolve(d))); });
const session = await PiperSession.create(${JSON.stringify(join(STANDIN, 'ar_JO-standin-tiny.onnx'))}, { intraOpThreads: 2 });
${THREADS}
const ids = BigInt64Array.from({ length: ${IDS} }, (_, i) => BigInt(i % 2 ? 0 : 14 + (i % 40)));
const order = [];
// The threads as the first run ends (6 runs still queued): each thread names and nices itself as it
// starts, so a look taken the moment the runs were submitted could see one still unnamed.
const at = {};
const start = performance.now();
const mark = (name) => { order.push(name); at[name] ??= performance.now() - start; };
let during = null;
const runs = Array.from({ length: 8 }, (_, i) =>
  session.synthesize(ids, { noiseScale: 0, noiseW: 0, lengthScale: 1 }).then((r) => { mark('onnx'); during ??= threads(); return r.samples; }));
const read = readFile(${JSON.stringify(NATIVE)}).then(() => { mark('file read'); });
const query = new Promise((resolve, reject) => db.get('SELECT 41 + 1 AS answer', (e, row) => (e ? reject(e) : resolve(row.answer))))
  .then((answer) => { mark('db query'); return answer; });
const [samples, , answer] = await Promise.all([Promise.all(runs), read, query]);
session.release();
await new Promise((resolve) => db.close(resolve));
console.log(JSON.stringify({ order, at, samples, answer, during, pid: process.pid }));
`;

t.test('ONNX runs run niced on threads of their own; libuv work does not wait behind 8 queued runs', async (t) => {
  const { NODE_OPTIONS, NODE_V8_COVERAGE, ...env } = process.env;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', child], {
    env: { ...env, UV_THREADPOOL_SIZE: '2' },
    timeout: 240000,
  });
  const { order, at, samples, answer, during, pid } = JSON.parse(stdout.trim().split('\n').at(-1));
  t.same(samples, Array(8).fill(512 * IDS), 'all 8 runs give their audio');
  t.equal(answer, 42, 'the query answers');
  const firstRun = order.indexOf('onnx');
  t.ok(order.indexOf('file read') < firstRun && order.indexOf('db query') < firstRun,
    `the file read and the query finished before the first ONNX run (order: ${order.join(', ')}; ms: ${JSON.stringify(at)})`);

  const main = during.find((thread) => thread.tid === pid);
  const expected = Math.min(19, main.nice + 5);
  const runThreads = during.filter((thread) => thread.name === 'sawt-onnx');
  const ortThreads = during.filter((thread) => thread.name === 'sawt-ort');
  t.equal(runThreads.length, 2, 'two ONNX run threads (the queue lets 2 runs in at once)');
  t.ok(ortThreads.length >= 1, `ONNX Runtime's intra-op thread(s) of the session (intraOpThreads 2): ${ortThreads.length}`);
  t.same([...runThreads, ...ortThreads].map((thread) => thread.nice), Array(runThreads.length + ortThreads.length).fill(expected),
    `every ONNX thread runs at nice ${expected} while the JavaScript thread runs at ${main.nice}`);
});

// A long-form job's model runs (background: true) run on a thread of their own, niced 12 above the
// JavaScript thread, and take none of the two run slots live requests use (native/onnx_runs.h).
const backgroundChild = `
import { readdirSync, readFileSync } from 'node:fs';
const { OnnxSession } = await import(${JSON.stringify(pathToFileURL(NATIVE).href)});
const { tinyAddModel } = await import(${JSON.stringify(pathToFileURL(join(import.meta.dirname, 'tiny-onnx.js')).href)});
${THREADS}
const session = await OnnxSession.create(tinyAddModel(), { intraOpThreads: 1 });
const X = { type: 'float32', dims: [2, 3], data: Float32Array.from([1, 2, 3, 4, 5, 6]) };
const K = { type: 'int64', dims: [2], data: BigInt64Array.from([1n, 2n]) };
const background = await Promise.all([1, 2, 3].map(() => session.run({ X, K }, ['Y'], { background: true })));
const afterBackground = threads();
const live = await session.run({ X, K }, ['Y']);
const afterLive = threads();
session.release();
console.log(JSON.stringify({ background: background.map((o) => [...o.Y.data]), live: [...live.Y.data], afterBackground, afterLive, pid: process.pid }));
`;

t.test('background ONNX runs: the same outputs, on one thread of their own niced 12, no live run thread started', async (t) => {
  const { NODE_OPTIONS, NODE_V8_COVERAGE, ...env } = process.env;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', backgroundChild], { env, timeout: 120000 });
  const { background, live, afterBackground, afterLive, pid } = JSON.parse(stdout.trim().split('\n').at(-1));
  t.same(background, Array(3).fill([2, 4, 6, 8, 10, 12]), 'each background run gives Y = X + X');
  t.same(live, [2, 4, 6, 8, 10, 12], 'a live run gives the same');
  const main = afterBackground.find((thread) => thread.tid === pid);
  const named = (list, name) => list.filter((thread) => thread.name === name);
  t.equal(named(afterBackground, 'sawt-onnx-bg').length, 1, 'three background runs went to one background thread');
  t.equal(named(afterBackground, 'sawt-onnx').length, 0, 'no live run thread was started for them');
  t.same(named(afterBackground, 'sawt-onnx-bg').map((thread) => thread.nice), [Math.min(19, main.nice + 12)], 'the background thread runs at nice +12');
  // (the live pool's second thread may not have named itself yet: one run went through one thread)
  t.ok(named(afterLive, 'sawt-onnx').length >= 1, 'a live run runs on a live run thread');
});
