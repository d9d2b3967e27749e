// npm run bench:hts-first-clause (issue 29 item 8): PAIRS (3) interleaved pairs of N (12) requests, CUTS (0,40) the
// hts.firstChunkChars settings compared (0: no cut, the default 40: a first clause over 40 characters spoken as its own utterance).
// sawt-hts first byte of a 175-character text whose first clause is 78 characters, with the
// first-clause cut (hts.firstChunkChars) off and on, interleaved in one sitting.
import { pct, startBenchServer, streamTts } from './harness.js';
const A = 'يسعدنا أن نقدم لكم اليوم خدمة صوت الجديدة لتحويل النصوص العربية إلى كلام طبيعي';
const TEXT = (A + '، وهي تدعم لهجات كثيرة من الفصحى إلى المصرية والخليجية. جربوها الآن وأخبرونا برأيكم فيها لنطورها معا.').slice(0, 175);
const N = Number(process.env.N ?? 12);
const settings = (process.env.CUTS ?? '0,40').split(',').map(Number);
const out = {};
for (let pair = 0; pair < Number(process.env.PAIRS ?? 3); pair++) {
  for (const cut of settings) {
    process.env.SAWT_BENCH_PLUGIN_OPTIONS = JSON.stringify({ '@sawt/plugin-engine': { hts: { firstChunkChars: cut } } });
    const { port, key, stop } = await startBenchServer();
    for (let i = 0; i < 2; i++) await streamTts({ port, key, model: 'sawt-hts', text: TEXT });
    const ms = [];
    for (let i = 0; i < N; i++) ms.push((await streamTts({ port, key, model: 'sawt-hts', text: TEXT })).firstByteMs);
    await stop();
    (out[cut] ??= []).push({ p50: pct(ms, 50), p95: pct(ms, 95) });
    console.log(`pair ${pair} cut ${cut}: p50 ${pct(ms, 50).toFixed(1)} p95 ${pct(ms, 95).toFixed(1)} ms`);
  }
}
for (const [cut, runs] of Object.entries(out)) console.log(`cut ${cut}: median p50 ${pct(runs.map((r) => r.p50), 50).toFixed(1)} ms, median p95 ${pct(runs.map((r) => r.p95), 50).toFixed(1)} ms (${runs.length} runs)`);
