// phonemize waits for an espeak-ng instance on threads of its own: while a synthesis holds the
// instance, libuv's pool (database queries, model runs, file reads) stays free, and urgent calls
// (a request's first segment) go ahead of waiting ones. Its own file: one espeak instance (the
// default count is taken once per process).
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { BASE, LONG_SENTENCE } from './helpers.js';

const { espeakInstances, phonemize, synthesizeStream } = await import('@sawt/native');

const WORDS = 'مُحَمَّدٌ عَرَبِيٌّ';

/**
 * A synthesis of one long segment (minutes of audio), once it holds the (only) espeak instance: its
 * first chunk came. espeak holds an instance for a whole segment; `end` resolves with the time it ended.
 */
async function holdEspeak() {
  const stream = synthesizeStream({ ...BASE, segments: [LONG_SENTENCE.repeat(30)], sampleRate: 24000, chunkMs: 1000 });
  stream.resume();
  const done = once(stream, 'end').then(() => performance.now());
  await once(stream, 'data');
  return { end: done };
}

t.test('file reads do not wait behind phonemize calls that wait for espeak', async (t) => {
  const synthesis = (await holdEspeak()).end;
  const order = [];
  // More calls than libuv's pool has threads (4): on the pool they would all have held a thread.
  const calls = Array.from({ length: 8 }, (_, i) => phonemize(WORDS, 'ar').then((ipa) => (order.push(`phonemize ${i}`), ipa)));
  const read = readFile(new URL(import.meta.url)).then(() => (order.push('file read'), performance.now()));
  const [ipas, readAt, synthesisEnd] = await Promise.all([Promise.all(calls), read, synthesis]);
  t.equal(order[0], 'file read', `the file read finished first (order: ${order.join(', ')})`);
  t.ok(readAt < synthesisEnd, 'while the synthesis still held espeak');
  t.same(new Set(ipas).size, 1, 'every call gives the same phonemes');
  t.match(ipas[0], /ħ/, 'IPA with Arabic phonemes');
});

t.test('an urgent call goes ahead of waiting calls that are not', async (t) => {
  // Phonemizing has espeak instances of its own, one thread each: every thread is kept busy first
  // (a text of about a second each), so that the calls below all wait in the queue together.
  const threads = espeakInstances();
  const busy = Array.from({ length: threads }, () => phonemize(LONG_SENTENCE.repeat(6000), 'ar', 'espeak'));
  await new Promise((resolve) => setTimeout(resolve, 50));
  const order = [];
  // Each later call takes tens of ms: calls that end within one turn of the event loop are settled
  // in the order their callbacks were created, not the order they ended.
  const later = Array.from({ length: 6 }, (_, i) => phonemize(LONG_SENTENCE.repeat(600), 'ar', 'espeak').then(() => order.push(`later ${i}`)));
  const urgent = phonemize(WORDS, 'ar', 'espeak', { urgent: true }).then(() => order.push('urgent'));
  await Promise.all([...busy, ...later, urgent]);
  t.equal(order[0], 'urgent', `the urgent call finished first (order: ${order.join(', ')})`);
  t.equal(order.length, 7);
});
