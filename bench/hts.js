// npm run bench:hts: the HTS voice (sawt-hts) over loopback HTTP streaming — time to
// first audio, real-time factor, throughput with 4 concurrent streams — and DNSMOS
// P.835 (sig_bak_ovr.onnx through the addon's OnnxSession) of sawt-hts vs sawt-mini on
// diacritized sentences. The server runs as a fresh clone does: the bundled voice and
// diacritizer (the diacritizer on, as by default; the results say so). Results go to bench/results/.
import { createDnsmos } from './dnsmos.js';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { TEXT, concurrentFigures, concurrentStreams, here, machine, round, sequentialFigures, startBenchServer, streamTts, writeResults } from './harness.js';

const N = Number(process.env.BENCH_REQUESTS ?? 20);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const SENTENCES = Number(process.env.BENCH_DNSMOS_SENTENCES ?? 20);

const { port, key, setup, stop } = await startBenchServer();
if (!setup.models.includes('sawt-hts')) {
  await stop();
  console.error('bench:hts: sawt-hts is not offered (its voice file is missing: sawt models verify); nothing to measure');
  process.exit(1);
}
const streamOnce = (model, voice_id, text = TEXT, keep = false) => streamTts({ port, key, model, voice_id, text, keep });

try {
  for (let i = 0; i < 3; i++) await streamOnce('sawt-hts', 'fusha-ziad');
  // 1. Sequential.
  const seq = [];
  for (let i = 0; i < N; i++) seq.push(await streamOnce('sawt-hts', i % 2 ? 'fusha-sami' : 'fusha-ziad'));
  // 2. Concurrent streams.
  const conc = await concurrentStreams(CONCURRENCY, 4, (i) => streamOnce('sawt-hts', i % 2 ? 'fusha-sami' : 'fusha-ziad'));

  // 3. DNSMOS.
  let dnsmos = { skipped: 'sig_bak_ovr.onnx not found' };
  const score = await createDnsmos(24000);
  if (score) {
    const sentences = readFileSync(path.join(here, '../test/frontend/diacritization-sentences.txt'), 'utf8').split('\n').map((s) => s.trim()).filter(Boolean).slice(0, SENTENCES);
    dnsmos = { sentences: sentences.length };
    for (const [model, voice] of [['sawt-hts', 'fusha-ziad'], ['sawt-hts', 'fusha-sami'], ['sawt-mini', 'fusha-omar']]) {
      const scores = [];
      for (const s of sentences) scores.push(await score((await streamOnce(model, voice, s, true)).pcm));
      const mean = (k) => round(scores.reduce((a, x) => a + x[k], 0) / scores.length, 3);
      dnsmos[`${model}/${voice}`] = { SIG: mean('sig'), BAK: mean('bak'), OVRL: mean('ovrl') };
    }
  }

  writeResults('hts', {
    date: new Date().toISOString(),
    machine: machine(),
    frontEnd: { diacritizer: setup.diacritizer },
    text: { chars: [...TEXT].length },
    sequential: sequentialFigures(seq),
    concurrent: concurrentFigures(CONCURRENCY, conc),
    dnsmos,
    targets: { firstByteP50Ms: 150, realTimeFactor: 0.1, dnsmosOvrl: 3.1 },
  });
} finally {
  await stop();
}
