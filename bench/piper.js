// npm run bench:piper: a Piper voice (the medium stand-in: the exact Piper graph and size of
// ar_JO-kareem-medium with random weights, so its speed is kareem's) as sawt-neural:
//  1. over loopback HTTP streaming, a 200-character text whose first sentence is long: first audio
//     byte p50/p95 with the first-chunk cut (engine piper.firstChunkChars, default 40) and without it;
//  2. throughput with 4 concurrent streams;
//  3. real-time factor of the model alone on 1 and 2 threads (the addon's PiperSession), and side by
//     side the same model and ids through onnxruntime-node from plain JavaScript: real-time factor
//     and the event loop's worst delay during the runs.
// The server's event loop's worst delay is reported for each phase. Needs the stand-in
// (SAWT_PIPER_STANDIN, default /work/shared/models/piper/standin). Results: bench/results/piper-<date>.json.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { piperSentences, phonemeIds, readPiperVoiceConfig } from '../plugins/engine/dist/index.js';
import { PiperSession } from '@sawt/native';
import { concurrentFigures, concurrentStreams, eventLoopFigures, machine, round, sequentialFigures, startBenchServer, streamTts, summary, writeResults } from './harness.js';

const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');
const N = Number(process.env.BENCH_REQUESTS ?? 10);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const STANDIN = process.env.SAWT_PIPER_STANDIN ?? '/work/shared/models/piper/standin';
const ONNX = path.join(STANDIN, 'ar_JO-standin-medium.onnx');

// 200 characters, the first sentence 125 of them (no clause mark before the 40th character).
const TEXT = ('تقدم خدمة صوت المفتوحة المصدر أصواتا عربية طبيعية يمكن تشغيلها على الأجهزة الخاصة دون الحاجة إلى اتصال بالإنترنت أو حساب سحابي. ' +
  'جربوا الصوت العصبي الجديد اليوم، وشاركونا آراءكم لنحسنه أكثر في الأسابيع القادمة.').slice(0, 200);

const modelsDir = mkdtempSync(path.join(tmpdir(), 'sawt-bench-piper-'));
mkdirSync(path.join(modelsDir, 'piper'));
symlinkSync(ONNX, path.join(modelsDir, 'piper/ar_JO-kareem-medium.onnx'));
symlinkSync(`${ONNX}.json`, path.join(modelsDir, 'piper/ar_JO-kareem-medium.onnx.json'));

async function httpPhase(piper) {
  const { port, key, setup, ask, stop } = await startBenchServer({
    env: { SAWT_MODELS_DIR: modelsDir, SAWT_BENCH_PLUGIN_OPTIONS: JSON.stringify({ '@sawt/plugin-engine': { piper } }) },
  });
  try {
    if (!setup.models.includes('sawt-neural')) throw new Error('sawt-neural is not offered');
    const once = () => streamTts({ port, key, model: 'sawt-neural', voice_id: 'neural-kareem', text: TEXT });
    for (let i = 0; i < 2; i++) await once();
    await ask('eld-reset', 'eld-reset');
    const seq = [];
    for (let i = 0; i < N; i++) seq.push(await once());
    const seqEld = await ask('eld', 'eld');
    await ask('eld-reset', 'eld-reset');
    const conc = await concurrentStreams(CONCURRENCY, 2, once);
    const concEld = await ask('eld', 'eld');
    return {
      piper, diacritizer: setup.diacritizer,
      sequential: { ...sequentialFigures(seq), serverEventLoopMaxMs: round(seqEld.maxMs), serverEventLoop: eventLoopFigures(seqEld) },
      concurrent: { ...concurrentFigures(CONCURRENCY, conc), serverEventLoopMaxMs: round(concEld.maxMs), serverEventLoop: eventLoopFigures(concEld) },
    };
  } finally {
    await stop();
  }
}

/** Ids of the bench text's sentences (diacritized as written: the model's speed depends on the id count only). */
async function benchIds() {
  const config = readPiperVoiceConfig(`${ONNX}.json`);
  return (await piperSentences(TEXT, 'ar', config.phonemeMap)).map((s) => phonemeIds(s, config.idMap).ids);
}

/** Runs every sentence RUNS times through `run(ids)` (→ samples at 22050 Hz): real-time factor and the event loop's worst delay. */
async function measureRtf(threads, idsList, run) {
  await run(idsList[0]);
  const eld = monitorEventLoopDelay({ resolution: 1 });
  eld.enable();
  let compute = 0;
  let audio = 0;
  const perSentence = [];
  for (let r = 0; r < RUNS; r++) {
    for (const ids of idsList) {
      const t0 = performance.now();
      const samples = await run(ids);
      const ms = performance.now() - t0;
      compute += ms;
      audio += samples / 22050;
      perSentence.push(ms);
    }
  }
  eld.disable();
  return { threads, realTimeFactor: round(compute / 1000 / audio, 4), audioSeconds: round(audio, 1), runMs: summary(perSentence, 1), eventLoopMaxMs: round(eld.max / 1e6) };
}

const SCALES = { noiseScale: 0.667, lengthScale: 1, noiseW: 0.8 };

async function sawtRtf(idsList, threads) {
  const session = await PiperSession.create(ONNX, { intraOpThreads: threads });
  try {
    return await measureRtf(threads, idsList, async (ids) => (await session.synthesize(BigInt64Array.from(ids, BigInt), { ...SCALES, inRate: 22050, outRate: 22050 })).samples);
  } finally {
    session.release();
  }
}

/** What a Node user would write with onnxruntime-node. */
async function ortRtf(idsList, threads) {
  const session = await ort.InferenceSession.create(ONNX, { intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' });
  const feeds = (ids) => ({
    input: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, ids.length]),
    input_lengths: new ort.Tensor('int64', BigInt64Array.from([BigInt(ids.length)]), [1]),
    scales: new ort.Tensor('float32', Float32Array.from([SCALES.noiseScale, SCALES.lengthScale, SCALES.noiseW]), [3]),
  });
  try {
    return await measureRtf(threads, idsList, async (ids) => (await session.run(feeds(ids))).output.dims.at(-1));
  } finally {
    await session.release();
  }
}

try {
  const idsList = await benchIds();
  const model = {
    sentences: idsList.length,
    ids: idsList.map((i) => i.length),
    sawt: [await sawtRtf(idsList, 1), await sawtRtf(idsList, 2)],
    onnxruntimeNode: [await ortRtf(idsList, 1), await ortRtf(idsList, 2)],
  };
  const http = {
    firstChunkCut: await httpPhase({ threads: 2, firstChunkChars: 40 }),
    noCut: await httpPhase({ threads: 2, firstChunkChars: 0 }),
  };
  writeResults('piper', {
    date: new Date().toISOString(),
    machine: machine(),
    note: 'medium stand-in (random weights, kareem-medium graph and size); a loaded, shared 2-core machine unless said otherwise',
    text: { chars: [...TEXT].length, firstSentenceChars: TEXT.indexOf('.') + 1 },
    model,
    http,
    targets: { realTimeFactor2Threads: 0.15, firstByteP50Ms: 300, eventLoopMaxMs: 20 },
  });
} finally {
  rmSync(modelsDir, { recursive: true, force: true });
}
