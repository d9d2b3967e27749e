// A long-form job's HTS work runs on the voice's background pool (native/priority_pool.cc,
// pools::Hts): threads of their own ("sawt-hts-bg"), niced 7 above the live pool's ("sawt-hts") and
// SCHED_IDLE where the process may, so live requests' first audio goes first on busy cores, yet
// never starved. Same audio either way.
import t from 'tap';
import { ENGINE, VOICE_FILE } from './helpers.js';
import { isIdleThread, threadStat, threadsNamed } from '../helpers/threads.js';

const { textToLabels } = await import(ENGINE);
const { synthesizeHtsStream } = await import('@sawt/native');

const TEXT = 'السَّلَامُ عَلَيْكُمْ وَرَحْمَةُ اللَّهِ.';

async function render(extra) {
  const bufs = [];
  for await (const { pcm } of synthesizeHtsStream({ voicePath: VOICE_FILE, utterances: textToLabels(TEXT), sampleRate: 24000, ...extra })) bufs.push(pcm);
  return Buffer.concat(bufs);
}

/** The nice values of this process's threads named `name`. */
const niceOf = (name) => threadsNamed(name).map((tid) => threadStat(tid).nice);

t.test('background HTS work: its own niced threads, the same audio', async (t) => {
  const live = await render({});
  t.same(niceOf('sawt-hts-bg'), [], 'no background pool before background work');
  const background = await render({ background: true });
  t.ok(live.length > 24000, 'live synthesis speaks');
  t.ok(background.equals(live), 'the background pool renders the same samples');
  const liveNice = niceOf('sawt-hts'), bgNice = niceOf('sawt-hts-bg');
  t.equal(bgNice.length, 2, 'the background pool has the voice\'s 2 threads');
  t.ok(liveNice.length >= 2, 'the live pool has its threads');
  for (const n of bgNice) t.equal(n, Math.min(19, liveNice[0] + 7), 'background threads run 7 nice levels below the live ones');
  // /proc/self/task/<tid>/sched names a thread's policy (5: SCHED_IDLE); only a process that may
  // raise a thread's priority again (root here, or CAP_SYS_NICE) uses it (idle_priority.h).
  // (a thread waiting for work, or handing over a chunk, holds the pool's or the stream's lock and
  // leaves the policy meanwhile: looked at while a render runs, some background thread is in it)
  const idle = () => threadsNamed('sawt-hts-bg').filter(isIdleThread).length;
  let idleSeen = 0;
  const sampler = setInterval(() => (idleSeen = Math.max(idleSeen, idle())), 1);
  await render({ background: true, utterances: textToLabels(`${TEXT} `.repeat(6)) });
  clearInterval(sampler);
  if (process.getuid?.() === 0) t.ok(idleSeen >= 1, `background threads run SCHED_IDLE (seen: ${idleSeen}): any other work takes their core at once`);
  else t.equal(idleSeen, 0, 'no SCHED_IDLE thread (this process may not leave it again)');
  t.throws(() => synthesizeHtsStream({ voicePath: VOICE_FILE, utterances: textToLabels(TEXT), background: 'yes' }), /Expected a boolean for background but received/);
});

t.test('background HTS work is never starved: under a load that fills every core, it keeps a share', async (t) => {
  // Spinning threads at the JavaScript thread's priority, one per core. A SCHED_IDLE thread gets
  // a weight of 3 against their 1024 (0.3 %); a task that barely got a core has the next one run
  // at nice 12 (weight 56: 5 %), so the work keeps moving (priority_pool.cc, kStarvedShare).
  const { Worker } = await import('node:worker_threads');
  const { availableParallelism } = await import('node:os');
  const spinners = Array.from({ length: availableParallelism() }, () => new Worker('for (;;) {}', { eval: true }));
  t.teardown(() => Promise.all(spinners.map((w) => w.terminate())));
  await new Promise((r) => setTimeout(r, 200));
  const cpu = () => threadsNamed('sawt-hts-bg').reduce((n, tid) => n + threadStat(tid).cpuSeconds, 0);
  const cpu0 = cpu();
  const t0 = performance.now();
  const pcm = await render({ background: true, utterances: textToLabels(`${TEXT} `.repeat(3)) });
  const wall = (performance.now() - t0) / 1000;
  const share = (cpu() - cpu0) / wall;
  t.ok(pcm.length > 48000, `the background render finished under full load (${(pcm.length / 48000).toFixed(1)} s of audio in ${wall.toFixed(1)} s)`);
  t.ok(share >= 0.015, `the background threads kept ${(100 * share).toFixed(1)} % of a core (SCHED_IDLE alone: about 0.3 %)`);
});
