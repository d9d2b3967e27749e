// Streams text from a generator (as a language model would produce it) over the
// WebSocket and writes the audio as it arrives; prints when the first audio came.
//   SAWT_URL=http://127.0.0.1:8080 SAWT_API_KEY=sawt_… node examples/ws-generator.mjs [out.wav]
// Node 20 has no global WebSocket: the ws package is used there (Node ≥ 22 and browsers need nothing).
import { writeFileSync } from 'node:fs';
import { SawtClient, pcmToWav } from '@sawt/client';

const WebSocketClass = globalThis.WebSocket ?? (await import('ws')).default;
const sawt = new SawtClient({ baseUrl: process.env.SAWT_URL ?? 'http://127.0.0.1:8080', apiKey: process.env.SAWT_API_KEY ?? '', WebSocket: WebSocketClass });

/** A stand-in for a model writing its answer a few words at a time. */
async function* generateText() {
  const answer = 'أهلا بك. الطقس اليوم مشمس ولطيف في معظم المناطق، مع رياح خفيفة في المساء. ' +
    'ننصحك بالخروج في الصباح الباكر والاستمتاع بالهواء النقي قبل ارتفاع درجات الحرارة.';
  const words = answer.split(' ');
  for (let i = 0; i < words.length; i += 3) {
    await new Promise((r) => setTimeout(r, 80));
    yield words.slice(i, i + 3).join(' ') + ' ';
  }
}

const started = performance.now();
const session = await sawt.connect({ voice_id: 'fusha-omar', model_id: 'sawt-mini', output_format: 'pcm_24000' });
const sending = (async () => {
  for await (const text of generateText()) await session.send(text);
  await session.flush();
})();

const chunks = [];
let first = null;
for await (const e of session.untilFinal()) {
  if (first === null && e.pcm.length) console.error(`first audio after ${(first = performance.now() - started).toFixed(0)} ms`);
  if (e.alignment) process.stderr.write(`${e.alignment.chars.join('')} `);
  chunks.push(e.pcm);
}
await sending;
await session.close();
const out = process.argv[2] ?? 'ws-out.wav';
writeFileSync(out, pcmToWav(chunks, 24000));
console.error(`\nwrote ${out} (${(chunks.reduce((n, c) => n + c.length, 0) / 48000).toFixed(1)} s)`);
