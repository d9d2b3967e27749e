// npm run bench:client: what @sawt/client adds to streaming text-to-speech, against
// raw fetch: time to the first PCM chunk, the two alternated request by request on
// the same server. Results: bench/results/client-<date>.json.
import { SawtClient } from '@sawt/client';
import { TEXT, machine, round, startBenchServer, streamTts, summary, writeResults } from './harness.js';

const N = Number(process.env.BENCH_REQUESTS ?? 40);
const { port, key, stop } = await startBenchServer();
const client = new SawtClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: key });

async function viaClient() {
  const t0 = performance.now();
  let first = -1;
  let bytes = 0;
  for await (const pcm of client.streamTextToSpeech('sawt-mini', { voice_id: 'fusha-omar', text: TEXT, stability: 0.5 })) {
    if (first < 0) first = performance.now() - t0;
    bytes += pcm.length;
  }
  return { firstByteMs: first, totalMs: performance.now() - t0, audioSeconds: bytes / 48000 };
}
const viaFetch = () => streamTts({ port, key, text: TEXT });

for (let i = 0; i < 5; i++) { await viaFetch(); await viaClient(); }
const raw = [];
const sdk = [];
for (let i = 0; i < N; i++) {
  // Alternate which goes first so that drift of the machine's load hits both alike.
  if (i % 2) { raw.push(await viaFetch()); sdk.push(await viaClient()); } else { sdk.push(await viaClient()); raw.push(await viaFetch()); }
}
await stop();
const rawFirst = summary(raw.map((r) => r.firstByteMs));
const sdkFirst = summary(sdk.map((r) => r.firstByteMs));
writeResults('client', {
  date: new Date().toISOString(),
  machine: machine(),
  model: 'sawt-mini',
  text: { chars: [...TEXT].length },
  requests: N,
  rawFetch: { firstByteMs: rawFirst, totalMs: summary(raw.map((r) => r.totalMs)) },
  client: { firstByteMs: sdkFirst, totalMs: summary(sdk.map((r) => r.totalMs)) },
  overheadMs: { firstByteP50: round(sdkFirst.p50 - rawFirst.p50), firstByteP95: round(sdkFirst.p95 - rawFirst.p95) },
});
