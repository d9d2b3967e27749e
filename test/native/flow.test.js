// Backpressure, cancellation and concurrency of native synthesis.
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import t from 'tap';
import { BASE, LONG_SENTENCE, SENTENCE, collect, rms } from './helpers.js';

const { nativeAddon, synthesizeStream } = await import('@sawt/native');

const manySegments = (n) => Array.from({ length: n }, () => SENTENCE);

// First in the file: no chunk of an earlier test is alive (pcmInFlight counts every chunk not yet freed).
t.test('8 concurrent syntheses run off the JavaScript thread, which keeps serving timers', async (t) => {
  const texts = Array.from({ length: 8 }, (_, i) => ({
    ...BASE,
    voice: i % 2 ? 'ar+f2' : 'ar',
    pitch: 30 + i * 5,
    segments: [LONG_SENTENCE, SENTENCE, LONG_SENTENCE, SENTENCE],
    sampleRate: [8000, 16000, 22050, 24000][i % 4],
    chunkMs: i % 3 ? 200 : 0,
  }));
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  const before = nativeAddon().pcmInFlight().chunks;
  const streams = texts.map((options) => synthesizeStream(options));
  // This thread now runs without yielding (no timer, no event): audio made meanwhile was made on
  // native threads. The deadline only bounds a failure.
  const deadline = Date.now() + 20_000;
  while (nativeAddon().pcmInFlight().chunks === before && Date.now() < deadline);
  t.ok(nativeAddon().pcmInFlight().chunks > before, 'audio was made while the JavaScript thread never yielded');
  const ticksBefore = ticks;
  const results = await Promise.all(streams.map((stream) => collect(stream)));
  clearInterval(timer);
  results.forEach(({ samples }, i) => t.ok(rms(samples) > 500, `synthesis ${i} is audible`));
  t.ok(ticks > ticksBefore, `a 5 ms timer kept firing while the syntheses ran (${ticks - ticksBefore} times)`);
});

t.test('a stream nobody reads stops the producer, and reading resumes it', async (t) => {
  const stream = synthesizeStream({ ...BASE, segments: manySegments(40) });
  await sleep(400); // 40 segments take ~100 ms unhindered
  const delivered = stream.readableLength; // object mode: chunks waiting in the stream
  t.ok(delivered >= 1 && delivered <= 6, `${delivered} of 40 chunks delivered while nobody reads`);
  const { samples, infos } = await collect(stream);
  t.equal(infos.length, 40, 'all chunks once read');
  t.ok(samples.length > 0 && infos.at(-1).segmentEnd, 'the stream ends normally');
});

t.test('pause() holds the job with at most maxQueuedChunks in flight; resume() finishes it', async (t) => {
  const chunks = [];
  let done;
  const finished = new Promise((resolve) => { done = resolve; });
  const handle = nativeAddon().createSynthesis(
    { ...BASE, segments: manySegments(30), sampleRate: 16000, maxQueuedChunks: 2 },
    (err, chunk, info) => (info.final ? done(err) : chunks.push(chunk)),
  );
  handle.pause();
  await sleep(300);
  t.ok(chunks.length <= 3, `${chunks.length} chunks while paused`);
  handle.resume();
  t.equal(await finished, null, 'no error');
  t.equal(chunks.length, 30);
  t.ok(chunks.every((c) => Buffer.isBuffer(c) && c.length > 0));
});

t.test('cancel() ends with SAWT_ENGINE_CANCELLED before the end', async (t) => {
  let count = 0;
  const error = await new Promise((resolve) => {
    const handle = nativeAddon().createSynthesis({ ...BASE, segments: manySegments(50), sampleRate: 24000 }, (err, chunk, info) => {
      if (chunk && ++count === 2) handle.cancel();
      if (info.final) resolve(err);
    });
  });
  t.equal(error.code, 'SAWT_ENGINE_CANCELLED');
  t.ok(count < 50, `stopped after ${count} chunks`);
});

t.test('destroying a stream mid-way cancels it without an error', async (t) => {
  const stream = synthesizeStream({ ...BASE, segments: manySegments(50), chunkMs: 50 });
  let chunks = 0;
  await new Promise((resolve, reject) => {
    stream.on('data', () => { if (++chunks === 3) stream.destroy(); });
    stream.on('error', reject);
    stream.on('close', resolve);
  });
  t.equal(chunks, 3);
  const again = await collect(synthesizeStream({ ...BASE, segments: [SENTENCE] }));
  t.ok(rms(again.samples) > 500, 'synthesis still works afterwards');
});

t.test('a handle dropped by JS still completes and frees itself', async (t) => {
  const error = await new Promise((resolve) => {
    nativeAddon().createSynthesis({ ...BASE, segments: [SENTENCE], sampleRate: 8000 }, (err, chunk, info) => {
      if (info.final) resolve(err);
    });
  });
  t.equal(error, null);
});

// The audio events come to JavaScript through one wake-up handle per thread (native/event_pump):
// it keeps that thread's event loop alive while a job has events to come, and goes with it.
const inWorker = (body, workerData) => new Worker(`
  const { parentPort, workerData } = require('node:worker_threads');
  import('@sawt/native').then(({ nativeAddon }) => { ${body} });
`, { eval: true, workerData });

t.test('a thread with nothing else to do stays alive until its synthesis ends', async (t) => {
  // Nothing but the job keeps the worker's event loop going: were it not held, the worker would
  // exit before the first chunk.
  const worker = inWorker(`
    let chunks = 0;
    nativeAddon().createSynthesis({ ...workerData, sampleRate: 16000, segments: Array(10).fill(workerData.text) }, (err, chunk, info) => {
      if (chunk) chunks++;
      if (info.final) parentPort.postMessage({ chunks, error: err && err.message });
    });
  `, { ...BASE, text: SENTENCE });
  let result = null;
  worker.on('message', (m) => (result = m));
  const [code] = await once(worker, 'exit');
  t.same(result, { chunks: 10, error: null }, 'every chunk and the final event came before the thread ended');
  t.equal(code, 0, 'then the thread ended by itself');
});

t.test('a thread torn down while its jobs make audio takes nothing down with it', async (t) => {
  for (let i = 0; i < 3; i++) {
    const worker = inWorker(`
      for (let j = 0; j < 4; j++) nativeAddon().createSynthesis({ ...workerData, sampleRate: 16000, segments: Array(40).fill(workerData.text) }, (err, chunk) => {
        if (chunk) parentPort.postMessage('audio');
      });
    `, { ...BASE, text: LONG_SENTENCE });
    await once(worker, 'message');
    await worker.terminate();
  }
  const { samples, infos } = await collect(synthesizeStream({ ...BASE, segments: manySegments(3) }));
  t.equal(infos.length, 3, 'synthesis on this thread still works');
  t.ok(rms(samples) > 100, 'and is audio');
});

t.test('after the thread was held up, a backlog of audio events does not hold up timers and I/O', async (t) => {
  // Every job has audio waiting once this thread was busy for a while (a long garbage collection,
  // a long callback). The pump hands it out a few milliseconds per turn of the event loop: a
  // setImmediate set at the first event runs after a few jobs' events, not after all of them.
  const JOBS = 12;
  const busy = (ms) => { const until = performance.now() + ms; while (performance.now() < until); };
  const jobsBefore = new Set();
  const jobsWithAudio = new Set();
  let immediateRan = false;
  let first = true;
  const finals = Array.from({ length: JOBS }, (_, job) => new Promise((resolve) => {
    nativeAddon().createSynthesis({ ...BASE, segments: manySegments(2), sampleRate: 16000 }, (err, chunk, info) => {
      if (chunk) {
        jobsWithAudio.add(job);
        if (!immediateRan) jobsBefore.add(job);
        if (first) {
          first = false;
          setImmediate(() => { immediateRan = true; });
        }
        busy(2); // what a consumer does with a chunk (encode, write)
      }
      if (info.final) resolve(err);
    });
  }));
  busy(800); // meanwhile the jobs make their audio
  t.same(await Promise.all(finals), Array(JOBS).fill(null), 'every job ends without an error');
  t.equal(jobsWithAudio.size, JOBS, 'every job delivered audio');
  t.ok(jobsBefore.size <= 3, `the immediate ran after the events of ${jobsBefore.size} of ${JOBS} jobs`);
});
