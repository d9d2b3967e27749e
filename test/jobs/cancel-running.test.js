// DELETE of a running job stops its part where it renders, at once: the engine's synthesis ends
// (nothing keeps the cores busy for a job nobody will hear), not at the part's end or at its next
// lease renewal (every leaseMs / 3: 20 s here). Nothing is charged, nothing is left on disk.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { startServer } from '../helpers/server.js';
import { jobsConfig, getJob, submitJob } from './helpers.js';

// One part of 6,000 characters (tens of seconds of rendering), a lease renewed every 20 s.
const server = await startServer(t, { config: jobsConfig({ runners: 1, partChars: 6000, leaseMs: 60_000 }) });
const { api } = server;
const SENTENCE = 'كان يا ما كان في قديم الزمان رجل يحب القراءة كثيرا وكان يقرأ كل يوم كتابا جديدا في مكتبة المدينة الكبيرة. ';
const TEXT = SENTENCE.repeat(Math.ceil(5500 / SENTENCE.length));

/** The engine's HTS syntheses in flight, as /metrics shows them (sawt_engine_jobs). */
async function htsInFlight() {
  const text = await (await fetch(`${server.base}/metrics`)).text();
  return Number(/^sawt_engine_jobs\{engine="hts"\} (\S+)$/m.exec(text)?.[1] ?? 0);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function filesUnder(dir) {
  const out = [];
  for (const e of await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) if (e.isFile()) out.push(path.join(e.parentPath ?? e.path, e.name));
  return out;
}

t.test('canceling a running job stops its rendering part at once; its money comes back', async (t) => {
  const { account, headers } = await server.client({ balance: '10' });
  const before = await server.balance(account.id);
  const sub = await submitJob(api, headers, 'sawt-hts', { voice_id: 'fusha-ziad', text: TEXT, output_format: 'wav_24000' });
  t.equal(sub.status, 202);
  const id = sub.body.job_id;
  const started = Date.now();
  while ((await htsInFlight()) === 0) {
    if (Date.now() - started > 60_000) throw new Error('the part never started rendering');
    await sleep(20);
  }
  t.equal((await getJob(api, headers, id)).body.status, 'running');
  await sleep(500); // well into the part
  const del = await fetch(`${api}/jobs/${id}`, { method: 'DELETE', headers: { 'x-api-key': headers['x-api-key'] } });
  t.same(await del.json(), { job_id: id, status: 'canceled' });
  const canceledAt = Date.now();
  while ((await htsInFlight()) > 0 && Date.now() - canceledAt < 10_000) await sleep(20);
  t.equal(await htsInFlight(), 0, `the engine's synthesis ended ${Date.now() - canceledAt} ms after the cancel (the part alone renders for tens of seconds; the next renewal is 20 s away)`);
  t.equal((await getJob(api, headers, id)).body.status, 'canceled');
  const after = await server.balance(account.id);
  t.same({ balance: after.balance, reserved: after.reserved }, { balance: before.balance, reserved: 0 }, 'nothing charged, nothing held');
  await sleep(200);
  t.same((await filesUnder(server.dataDir)).filter((f) => f.includes(id)), [], 'no part file of the job is left');
});

t.test('canceling jobs back to back: a part claimed while its job was being canceled is not rendered', async (t) => {
  // Two runners, as by default on two cores: the second job's parts are claimed as soon as the
  // first job's stop, while its own cancel is on the way.
  const two = await startServer(t, { config: jobsConfig({ runners: 2, partChars: 6000, leaseMs: 60_000 }) });
  const inFlight = async () => Number(/^sawt_engine_jobs\{engine="hts"\} (\S+)$/m.exec(await (await fetch(`${two.base}/metrics`)).text())?.[1] ?? 0);
  const { headers } = await two.client({ balance: '10' });
  const ids = [];
  for (let i = 0; i < 2; i++) ids.push((await submitJob(two.api, headers, 'sawt-hts', { voice_id: 'fusha-ziad', text: TEXT + TEXT, output_format: 'wav_24000' })).body.job_id);
  const started = Date.now();
  while ((await inFlight()) === 0) {
    if (Date.now() - started > 60_000) throw new Error('the part never started rendering');
    await sleep(20);
  }
  await sleep(300);
  const key = { 'x-api-key': headers['x-api-key'] };
  for (const id of ids) t.equal((await fetch(`${two.api}/jobs/${id}`, { method: 'DELETE', headers: key })).status, 200);
  const canceledAt = Date.now();
  let busy = 0;
  while (Date.now() - canceledAt < 3000) {
    if ((await inFlight()) > 0) busy = Date.now() - canceledAt;
    await sleep(20);
  }
  t.ok(busy < 1000, `no synthesis ran past the cancels (the last seen ${busy} ms after them; a part's lease is renewed, and checked, every 20 s)`);
  for (const id of ids) t.equal((await getJob(two.api, headers, id)).body.status, 'canceled');
});
