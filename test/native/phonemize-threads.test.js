// phonemize waits for an espeak-ng instance (phonemizing has instances of its own) on threads of its
// own: while every instance is busy, libuv's pool (database queries, model runs, file reads) stays
// free, and urgent calls (a request's first segment) go ahead of waiting ones. Its own file: the
// instance count is taken once per process.
import { readFile } from 'node:fs/promises';
import t from 'tap';
import { LONG_SENTENCE } from './helpers.js';

const { espeakInstances, phonemize } = await import('@sawt/native');

const WORDS = 'مُحَمَّدٌ عَرَبِيٌّ';

t.test('file reads do not wait behind phonemize calls that wait for espeak', async (t) => {
  // Phonemizing has espeak instances of its own: each is kept busy first (a text of about a second
  // each), so that the calls below wait for one. (Calls that found an instance free ended in about
  // a millisecond, a race with the file read's four steps through the event loop.)
  const busyEnd = Promise.all(Array.from({ length: espeakInstances() }, () => phonemize(LONG_SENTENCE.repeat(6000), 'ar', 'espeak'))).then(() => performance.now());
  await new Promise((resolve) => setTimeout(resolve, 50));
  const order = [];
  // More calls than libuv's pool has threads (4): on the pool they would all have held a thread.
  const calls = Array.from({ length: 8 }, (_, i) => phonemize(WORDS, 'ar').then((ipa) => (order.push(`phonemize ${i}`), ipa)));
  const read = readFile(new URL(import.meta.url)).then(() => (order.push('file read'), performance.now()));
  const [ipas, readAt, busyAt] = await Promise.all([Promise.all(calls), read, busyEnd]);
  t.equal(order[0], 'file read', `the file read finished first (order: ${order.join(', ')})`);
  t.ok(readAt < busyAt, 'while every espeak instance of phonemizing was still busy');
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
