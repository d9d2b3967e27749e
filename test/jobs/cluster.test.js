// Jobs in a cluster (config/cluster.json: PostgreSQL, blobs in the database, Redis): the node
// rendering a job dies (kill -9); another node, sharing no filesystem with it, takes the job over
// from its last finished part once the dead node's lease runs out, and it is charged once.
import t from 'tap';
import { billableChars, outputFormat } from '@sawt/core';
import { freshCluster, servicesMissing } from '../cluster/fixtures/cluster.js';
import { pollUntil } from '../helpers/server.js';
import { BOOK_SPOKEN, decodeAudio, pollJob, submitJob } from './helpers.js';

const missing = await servicesMissing();
if (missing) t.plan(0, missing);
else {
  t.test('the node rendering a job dies: another node finishes it from its last finished part', async (t) => {
    const cluster = await freshCluster(t, (plugins) => {
      const options = { partChars: 120, pollMs: 50, sweepMs: 200, leaseMs: 1500, runners: 1 };
      const jobs = plugins.find((p) => p.resolve === '@sawt/plugin-jobs');
      if (jobs) jobs.options = { ...jobs.options, ...options };
      else plugins.push({ resolve: '@sawt/plugin-jobs', options });
    });
    const a = await cluster.node();
    const { account, headers } = await cluster.client({ plan: 'basic', balance: '10' });
    const text = `${BOOK_SPOKEN}\n\n`.repeat(4).trim();
    const sub = await submitJob(a.api, headers, 'sawt-hts', { voice_id: 'fusha-ziad', text, output_format: 'mp3_22050_32' });
    t.equal(sub.status, 202, JSON.stringify(sub.body));
    const id = sub.body.job_id;
    const before = (await pollJob(a.api, headers, id, { until: (j) => j.characters_done > 0 || !['queued', 'running'].includes(j.status) })).at(-1);
    t.equal(before.status, 'running');
    a.kill('SIGKILL');
    await a.exited;

    const db = cluster.db();
    t.teardown(() => db.destroy());
    const doneAtKill = await db('job_parts').where({ job_id: id, status: 'done' }).select('idx', 'blob_key');
    const { parts_total: partsTotal } = await db('jobs').where({ id }).first('parts_total');
    t.ok(doneAtKill.length >= 1 && doneAtKill.length < partsTotal - 1, `${doneAtKill.length} of ${partsTotal} parts were done at the kill`);

    const b = await cluster.node();
    const end = (await pollJob(b.api, headers, id, { ms: 180_000 })).at(-1);
    t.equal(end.status, 'succeeded', JSON.stringify(end.error));
    t.equal(end.characters_done, billableChars(text));
    const parts = await db('job_parts').where({ job_id: id }).select('idx', 'attempts', 'blob_key');
    for (const p of doneAtKill) t.equal(parts.find((q) => q.idx === p.idx).blob_key, p.blob_key, `part ${p.idx}, done on the dead node, was kept`);
    const renders = parts.reduce((n, p) => n + p.attempts, 0);
    // A kill between two parts cuts none.
    t.ok(renders === partsTotal || renders === partsTotal + 1, `every part rendered once, the one cut by the kill twice (${renders} renders of ${partsTotal} parts)`);

    const audio = Buffer.from(await (await fetch(`${b.api}/jobs/${id}/audio`, { headers })).arrayBuffer());
    const d = await decodeAudio(audio, outputFormat('mp3_22050_32'));
    t.ok(Math.abs(d.seconds - end.audio_seconds) < 0.2, `the audio has every part (${d.seconds} s of ${end.audio_seconds} s)`);

    const wallet = await pollUntil('settled', async () => {
      const w = await cluster.wallet(account.id);
      return w.reserved === 0 && w;
    });
    t.equal(wallet.balance, Number((10 - billableChars(text) * 0.0002).toFixed(6)), 'charged once');
    const ledger = await cluster.json('wallet', 'ledger', '--account', account.id);
    t.equal(ledger.filter((e) => e.kind === 'settle').length, 1);
    t.equal(ledger.filter((e) => e.kind === 'release').length, 0, 'the dead node\'s sweep did not release the job\'s reservation');
  });
}
