// First segments (the first audio of a request) go ahead of later segments of other syntheses on
// espeak: a later segment holds an instance for the whole segment, so one that started while first
// segments waited would make each of them wait that long. Its own file: one espeak instance (the
// count is taken once per process).
import t from 'tap';
import { BASE, LONG_SENTENCE, SENTENCE } from './helpers.js';

const { synthesizeStream } = await import('@sawt/native');

const WORDS = 'مُحَمَّدٌ عَرَبِيٌّ';

t.test('first segments queued while a synthesis is in its later segments are not held until it ends', async (t) => {
  const LONG = LONG_SENTENCE.repeat(3);
  const long = synthesizeStream({ ...BASE, segments: [SENTENCE, LONG, LONG, LONG, LONG, LONG], sampleRate: 24000, chunkMs: 100 });
  const events = [];
  let resolveInLater;
  const inLater = new Promise((resolve) => (resolveInLater = resolve));
  long.on('data', ({ info }) => {
    if (info.segment === 1) resolveInLater();
    if (info.segmentEnd) events.push(`long ${info.segment}`);
  });
  const longEnd = new Promise((resolve, reject) => long.on('end', resolve).on('error', reject));
  // The long synthesis is in its second segment (a later one, holding the only instance): three
  // requests arrive, one segment each, their first.
  await inLater;
  const firsts = Array.from({ length: 3 }, (_, i) => {
    const s = synthesizeStream({ ...BASE, segments: [WORDS], sampleRate: 24000, chunkMs: 100, urgent: true });
    s.resume();
    return new Promise((resolve, reject) => s.on('end', () => resolve(events.push(`first ${i}`))).on('error', reject));
  });
  await Promise.all([...firsts, longEnd]);
  // Urgent turns go ahead of the long synthesis's later turns, which also yield to them for a
  // bounded while: they end within its next segments, never after all of them. (Order only: how
  // many of its segments end before them depends on how busy the cores are.)
  const lastFirst = Math.max(...[0, 1, 2].map((i) => events.indexOf(`first ${i}`)));
  t.ok(lastFirst < events.indexOf('long 5'), `the first segments ended before the long synthesis did (${events.join(', ')})`);
  t.same(events.filter((e) => e.startsWith('long')), [0, 1, 2, 3, 4, 5].map((i) => `long ${i}`), 'the long synthesis went on in order');
});

t.test('a steady stream of first segments does not starve later segments', async (t) => {
  const long = synthesizeStream({ ...BASE, segments: [SENTENCE, SENTENCE, SENTENCE], sampleRate: 24000, chunkMs: 100 });
  long.resume();
  let ended = false;
  const longEnd = new Promise((resolve, reject) => long.on('end', () => resolve((ended = true))).on('error', reject));
  // Four first segments are always waiting or being made (a new one as soon as one ends) until the
  // long synthesis ends; the deadline only bounds a failure.
  const deadline = performance.now() + 60_000;
  let firsts = 0;
  const keepComing = async () => {
    while (!ended && performance.now() < deadline) {
      const s = synthesizeStream({ ...BASE, segments: [SENTENCE], sampleRate: 24000, chunkMs: 100, urgent: true });
      s.resume();
      firsts++;
      await new Promise((resolve, reject) => s.on('end', resolve).on('error', reject));
    }
  };
  await Promise.all(Array.from({ length: 4 }, keepComing));
  t.ok(ended, `the later segments ended while first segments kept coming (${firsts} of them)`);
  await longEnd;
});

t.test('later segments are synthesized on SCHED_IDLE threads where the process may leave that policy again, and all their audio comes', async (t) => {
  // /proc/self/task/<tid>/sched names each thread's policy (5: SCHED_IDLE). Only a process that
  // may raise a thread's priority (root here, or CAP_SYS_NICE) uses it: its threads leave it while
  // they hold the locks the JavaScript thread takes.
  const { readdirSync, readFileSync } = await import('node:fs');
  const idleThreads = () => readdirSync('/proc/self/task').filter((tid) => /^policy\s*:\s*5$/m.test(readFileSync(`/proc/self/task/${tid}/sched`, 'utf8'))).length;
  const mayRaise = process.getuid?.() === 0;
  // A later thread is idle only while it synthesizes (it leaves the policy while it waits for
  // work or hands a chunk over), so its segments are long enough to be seen in, and the policy is
  // read on a timer from the start as well as on each chunk: the producer runs ahead of this
  // reader, and CI once saw none when it looked only as later chunks were read. (This process
  // runs nothing else: the first segment's thread is never idle, so an idle one is a later one.)
  const LATER = LONG_SENTENCE.repeat(6);
  const stream = synthesizeStream({ ...BASE, segments: [SENTENCE, LATER, LATER], sampleRate: 24000, chunkMs: 100 });
  let samples = 0;
  let idleSeen = 0;
  const look = () => {
    idleSeen = Math.max(idleSeen, idleThreads());
  };
  const timer = setInterval(look, 1);
  stream.on('data', ({ pcm }) => {
    samples += pcm.length / 2;
    look();
  });
  await new Promise((resolve, reject) => stream.on('end', resolve).on('error', reject)).finally(() => clearInterval(timer));
  if (mayRaise) t.ok(idleSeen >= 1, `a SCHED_IDLE thread while later segments were made (${idleSeen})`);
  else t.equal(idleSeen, 0, 'no SCHED_IDLE thread (this process may not leave it again)');
  t.ok(samples / 24000 > 5, `all the audio came (${(samples / 24000).toFixed(1)} s)`);
});
