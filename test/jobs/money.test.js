// The money of jobs at its edges: a reservation whose job was never stored (the process died
// between reserving a submit's price and storing its job) is released by the sweep, while a
// stored job's reservation is kept however old; a render that fails mid-job (the engine errs on
// a later part) releases the price in full, as the ledger shows.
import path from 'node:path';
import t from 'tap';
import { tokens } from '@sawt/core';
import { delayCalls, pollUntil, repoRoot, startServer } from '../helpers/server.js';
import { jobsConfig, pollJob, submitJob } from './helpers.js';

const FORMANT = path.join(repoRoot, 'test/fixtures/plugins/formant-voice/index.js');

/** Ledger rows of one reservation, oldest first, as [kind, amount]. */
async function reservationLedger(server, accountId, reservationId) {
  const ledger = await server.app.get(tokens.wallet).ledger(accountId);
  return ledger.filter((e) => e.reservationId === reservationId).reverse().map((e) => [e.kind, e.amount]);
}

t.test('a reservation with no job is released by the sweep; a queued job keeps its own', async (t) => {
  // No runner renders (the job stays queued); a reservation is an orphan after 1 s.
  const server = await startServer(t, { config: jobsConfig({ runners: 0, orphanGraceMs: 1000 }) });
  const wallet = server.app.get(tokens.wallet);
  const { account, headers } = await server.client({ balance: '5' });
  const before = await server.balance(account.id);

  const sub = await submitJob(server.api, headers, 'sawt-mini', { voice_id: 'fusha-omar', text: 'كان يا ما كان في قديم الزمان رجل يحب القراءة كثيرا.' });
  t.equal(sub.status, 202);
  const jobCost = before.available - (await server.balance(account.id)).available;
  t.ok(jobCost > 0, `the job's price is held (${jobCost} micro)`);

  // What a submit cut off between its two writes leaves: the price reserved, durable, and no job.
  const orphan = await wallet.reserveDurable(account.id, 250_000, { requestId: 'job-cut-off', description: 'job cut off: 1250 chars with sawt-mini' });
  t.equal((await server.balance(account.id)).reserved, jobCost + 250_000, 'both held');

  const after = await pollUntil('the orphan released', async () => {
    const b = await server.balance(account.id);
    return b.reserved === jobCost && b;
  }, 30_000);
  t.equal(after.balance, before.balance, 'nothing charged');
  t.same(await reservationLedger(server, account.id, orphan.id), [['reserve', 250_000], ['release', 250_000]], 'the orphan released in full, once');
  t.equal(await wallet.reservation(orphan.id), null, 'the orphan is closed');

  // The job's reservation is older than the grace by now, and still held: it has its job.
  const job = await (await fetch(`${server.api}/jobs/${sub.body.job_id}`, { headers })).json();
  t.equal(job.status, 'queued');
  await server.app.get(tokens.database).knex('jobs').where({ id: sub.body.job_id }).first('reservation_id').then(async ({ reservation_id: id }) => {
    t.ok(await wallet.reservation(id), 'the queued job\'s reservation is open');
    t.same(await reservationLedger(server, account.id, id), [['reserve', jobCost]], 'and untouched');
  });
});

t.test('an engine error mid-job fails it and releases the price in full', async (t) => {
  const config = jobsConfig({ maxAttempts: 2 });
  config.plugins.push({ resolve: FORMANT, options: { failWord: 'خطأ' } });
  const server = await startServer(t, { config });
  const { account, headers } = await server.client({ balance: '5' });
  const before = await server.balance(account.id);
  // Parts of 120 characters: the first two speak, the third has the word the back end fails on.
  const text = [
    'قال الولد إن الطيور تطير فوق البيوت الجميلة في الصباح الباكر. وكانت الشمس تشرق على الحقول الخضراء والأشجار العالية.',
    'ثم جلس الولد تحت شجرة كبيرة يقرأ كتابا عن البحر والسفن. وكان الهواء لطيفا والسماء صافية زرقاء في ذلك اليوم الجميل.',
    'وفي آخر الكتاب وجد الولد كلمة خطأ مكتوبة بخط كبير، فضحك كثيرا ثم أغلق الكتاب وعاد إلى البيت.',
  ].join('\n\n');
  const sub = await submitJob(server.api, headers, 'formant-1', { voice_id: 'formant-nour', text, output_format: 'wav_24000' });
  t.equal(sub.status, 202, JSON.stringify(sub.body));
  const id = sub.body.job_id;
  const { reservation_id: reservationId, cost_micro: cost } = await server.app.get(tokens.database).knex('jobs').where({ id }).first('reservation_id', 'cost_micro');
  t.equal((await server.balance(account.id)).reserved, Number(cost), 'the price is held');

  const views = await pollJob(server.api, headers, id);
  const job = views.at(-1);
  t.equal(job.status, 'failed');
  t.same(job.error, { status: 500, errorCode: 50001, errorMessage: job.error.errorMessage }, 'the engine\'s error: 500 / 50001');
  t.ok(job.characters_done > 0 && job.characters_done < job.characters, `it failed mid-job (${job.characters_done} of ${job.characters} characters done)`);

  const after = await pollUntil('the reservation closed', async () => {
    const b = await server.balance(account.id);
    return b.reserved === 0 && b;
  });
  t.equal(after.balance, before.balance, 'nothing charged');
  t.same(await reservationLedger(server, account.id, reservationId), [['reserve', Number(cost)], ['release', Number(cost)]], 'reserved, then released in full; no settle');
  const audio = await fetch(`${server.api}/jobs/${id}/audio`, { headers });
  t.equal(audio.status, 409, 'a failed job has no audio');
});

t.test('a job is seen succeeded only with its price charged: never with the money still reserved', async (t) => {
  // The runner ends the job, then closes its money; a slow wallet widens that gap to 1.5 s.
  const server = await startServer(t, { config: jobsConfig() });
  delayCalls(t, server.app.get(tokens.wallet), 'reservation', 1500);
  const { account, headers } = await server.client({ balance: '5' });
  const before = await server.balance(account.id);
  const sub = await submitJob(server.api, headers, 'sawt-mini', { voice_id: 'fusha-omar', text: 'كان يا ما كان في قديم الزمان رجل يحب القراءة كثيرا.', output_format: 'wav_24000' });
  t.equal(sub.status, 202, JSON.stringify(sub.body));
  const { cost_micro: cost } = await server.app.get(tokens.database).knex('jobs').where({ id: sub.body.job_id }).first('cost_micro');

  const job = (await pollJob(server.api, headers, sub.body.job_id)).at(-1);
  t.equal(job.status, 'succeeded');
  const after = await server.balance(account.id);
  t.equal(after.reserved, 0, 'nothing is still reserved when the job reads succeeded');
  t.equal(before.balance - after.balance, Number(cost), 'the price is charged, once');
  const listed = await (await fetch(`${server.api}/jobs`, { headers })).json();
  t.equal(listed.jobs[0].status, 'succeeded');
  t.equal((await server.balance(account.id)).balance, after.balance, 'reading it again charges nothing more');
});
