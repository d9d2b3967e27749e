// A job survives kill -9 of its server: restarted on the same data dir, it resumes from its last
// finished part (the parts finished before the kill are not rendered again), ends with complete
// audio and captions, and is charged once.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import knexFactory from 'knex';
import { billableChars, outputFormat } from '@sawt/core';
import { pollUntil, tempDir } from '../helpers/server.js';
import { freePort, sawtJson, spawnServer } from '../helpers/spawned-server.js';
import { BOOK_SPOKEN, decodeAudio, getJob, pollJob, submitJob } from './helpers.js';

const JOB_OPTIONS = { partChars: 120, pollMs: 50, sweepMs: 200, leaseMs: 1500, runners: 1 };

t.test('kill -9 mid-job, then restart: it resumes from its last finished part and is charged once', async (t) => {
  const dataDir = tempDir(t);
  const configPath = path.join(dataDir, 'jobs.json');
  writeFileSync(configPath, JSON.stringify({ extends: 'default', plugins: [{ resolve: '@sawt/plugin-jobs', options: JOB_OPTIONS }] }));
  const env = { SAWT_DATA_DIR: dataDir, SAWT_PORT: String(await freePort()), SAWT_HOST: '127.0.0.1', SAWT_CONFIG: configPath };
  const first = await spawnServer(t, env);
  const acc = await sawtJson(env, 'accounts', 'create', '--name', 'Book', '--plan', 'free', '--balance', '10');
  const key = await sawtJson(env, 'keys', 'create', '--account', acc.id);
  const headers = { 'x-api-key': key.key };
  const text = `${BOOK_SPOKEN}\n\n`.repeat(4).trim();

  const sub = await submitJob(first.api, headers, 'sawt-hts', { voice_id: 'fusha-ziad', text, output_format: 'opus_48000_32' });
  t.equal(sub.status, 202, JSON.stringify(sub.body));
  const id = sub.body.job_id;
  const before = (await pollJob(first.api, headers, id, { until: (j) => j.characters_done > 0 || j.status !== 'queued' && j.status !== 'running' })).at(-1);
  t.equal(before.status, 'running', 'killed while running');
  t.ok(before.progress < 0.9, `with most of it left (${before.progress})`);

  first.kill('SIGKILL');
  t.match(await first.exited, { signal: 'SIGKILL' });
  const db = knexFactory({ client: 'sqlite3', connection: { filename: path.join(dataDir, 'sawt.db') }, useNullAsDefault: true });
  t.teardown(() => db.destroy());
  const doneAtKill = (await db('job_parts').where({ job_id: id, status: 'done' }).select('idx', 'blob_key')).map((p) => `${p.idx}:${p.blob_key}`).sort();
  t.ok(doneAtKill.length >= 1, `${doneAtKill.length} parts were finished at the kill`);
  const { parts_total: partsTotal } = await db('jobs').where({ id }).first('parts_total');
  t.ok(partsTotal > doneAtKill.length + 1, `${partsTotal} parts in all`);

  const second = await spawnServer(t, env);
  const after = await getJob(second.api, headers, id);
  t.ok(after.body.progress >= before.progress, 'progress did not go back across the restart');
  const end = (await pollJob(second.api, headers, id, { ms: 180_000 })).at(-1);
  t.equal(end.status, 'succeeded', JSON.stringify(end.error));
  t.equal(end.characters_done, billableChars(text));

  const parts = await db('job_parts').where({ job_id: id }).select('idx', 'attempts', 'status');
  const keysAfter = new Set();
  for (const p of await db('job_parts').where({ job_id: id }).select('idx', 'blob_key')) keysAfter.add(`${p.idx}:${p.blob_key}`);
  t.same(doneAtKill.filter((k) => !keysAfter.has(k)), [], 'the parts finished before the kill were kept, not rendered again');
  const renders = parts.reduce((n, p) => n + p.attempts, 0);
  // A kill between two parts cuts none.
  t.ok(renders === partsTotal || renders === partsTotal + 1, `every part rendered once, but the one cut by the kill twice (${renders} renders of ${partsTotal} parts)`);
  t.ok(parts.every((p) => p.status === 'done'));

  const audio = Buffer.from(await (await fetch(`${second.api}/jobs/${id}/audio`, { headers })).arrayBuffer());
  const d = await decodeAudio(audio, outputFormat('opus_48000_32'));
  t.ok(Math.abs(d.seconds - end.audio_seconds) < 0.1, `the audio has every part (${d.seconds} s of ${end.audio_seconds} s)`);
  const vtt = await (await fetch(`${second.api}/jobs/${id}/captions.vtt`, { headers })).text();
  const cueText = [...vtt.matchAll(/ --> [^\n]+\n([^\n]+)/g)].map((m) => m[1]).join(' ');
  t.equal(cueText, text.replace(/\s+/g, ' '), 'the cues carry every sentence, in order');

  const wallet = await pollUntil('settled', async () => {
    const w = await sawtJson(env, 'wallet', 'show', '--account', acc.id);
    return w.reserved === 0 && w;
  });
  t.equal(wallet.balance, Number((10 - billableChars(text) * 0.0002).toFixed(6)), 'charged the price once');
  const ledger = await sawtJson(env, 'wallet', 'ledger', '--account', acc.id);
  t.equal(ledger.filter((e) => e.kind === 'settle').length, 1, 'one settle');
  t.equal(ledger.filter((e) => e.kind === 'release').length, 0, 'the restart did not release the job\'s reservation');
  second.kill('SIGTERM');
  await second.exited;
});

t.test('SIGTERM mid-job: the part being rendered is given back at once, and the job goes on after the restart', async (t) => {
  const dataDir = tempDir(t);
  const configPath = path.join(dataDir, 'jobs.json');
  // A long lease: the restart must not wait for it (the stopping server gave its part back).
  writeFileSync(configPath, JSON.stringify({ extends: 'default', plugins: [{ resolve: '@sawt/plugin-jobs', options: { ...JOB_OPTIONS, leaseMs: 600_000 } }] }));
  const env = { SAWT_DATA_DIR: dataDir, SAWT_PORT: String(await freePort()), SAWT_HOST: '127.0.0.1', SAWT_CONFIG: configPath };
  const first = await spawnServer(t, env);
  const acc = await sawtJson(env, 'accounts', 'create', '--name', 'Term', '--plan', 'basic', '--balance', '10');
  const key = await sawtJson(env, 'keys', 'create', '--account', acc.id);
  const headers = { 'x-api-key': key.key };
  const text = `${BOOK_SPOKEN}\n\n`.repeat(3).trim();
  const id = (await submitJob(first.api, headers, 'sawt-hts', { voice_id: 'fusha-ziad', text })).body.job_id;
  await pollJob(first.api, headers, id, { until: (j) => j.characters_done > 0 || !['queued', 'running'].includes(j.status) });
  first.kill('SIGTERM');
  t.match(await first.exited, { code: 0 }, 'a clean exit');
  const db = knexFactory({ client: 'sqlite3', connection: { filename: path.join(dataDir, 'sawt.db') }, useNullAsDefault: true });
  t.teardown(() => db.destroy());
  t.equal((await db('jobs').where({ id }).first('status')).status, 'running', 'the job was not failed or canceled by the shutdown');
  t.same(await db('job_parts').where({ job_id: id, status: 'leased' }).select('idx'), [], 'no part stays leased to the stopped server');
  const second = await spawnServer(t, env);
  const end = (await pollJob(second.api, headers, id, { ms: 180_000 })).at(-1);
  t.equal(end.status, 'succeeded');
  t.equal(end.characters_done, billableChars(text));
  const wallet = await pollUntil('settled', async () => {
    const w = await sawtJson(env, 'wallet', 'show', '--account', acc.id);
    return w.reserved === 0 && w;
  });
  t.equal(wallet.balance, Number((10 - billableChars(text) * 0.0002).toFixed(6)), 'charged once');
  second.kill('SIGTERM');
  await second.exited;
});
