// Job webhooks: signed with the account's secret (verified here as a receiver would), retried
// after a failed answer, not following redirects, sent on cancel too; and targets that resolve to
// loopback, private, link-local or metadata addresses refused unless the operator allows them.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { once } from 'node:events';
import t from 'tap';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { pollUntil, repoRoot, startServer, tempDir } from '../helpers/server.js';
import { BOOK_SPOKEN, jobsConfig, pollJob, submitJob } from './helpers.js';

// Only this loopback address is allowed (as an operator would for tests): 127.0.0.2 stays refused.
process.env.SAWT_WEBHOOK_ALLOW = '127.0.0.1/32';
const dataDir = tempDir(t);
const server = await startServer(t, { config: jobsConfig({ webhook: { retryBaseMs: 100, retryWindowHours: 0.001, timeoutMs: 2000 } }), runtime: { dataDir, modelsDir: path.join(dataDir, 'models') } });
const { api } = server;

/** A webhook receiver: answers each path with the given statuses in turn (then 200), keeps what it got. */
async function receiver(t, answers = {}) {
  const got = [];
  const http = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      got.push({ path: req.url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = answers[req.url]?.shift() ?? 200;
      res.writeHead(status, status >= 300 && status < 400 ? { location: '/elsewhere' } : {});
      res.end();
    });
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  t.teardown(() => http.close());
  return { url: (p) => `http://127.0.0.1:${http.address().port}${p}`, got };
}

/** Verifies `Sawt-Signature: t=…,v1=…` over "t.body" with `secret`, as a receiver should. */
function verify(secret, header, body) {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!m) return false;
  const expected = createHmac('sha256', secret).update(`${m[1]}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(m[2], 'hex')) && Math.abs(Date.now() / 1000 - Number(m[1])) < 300;
}

async function secretOf(headers) {
  const res = await fetch(`${api}/webhooks/secret`, { method: 'POST', headers: { 'x-api-key': headers['x-api-key'] } });
  t.equal(res.status, 200);
  return (await res.json()).secret;
}

t.test('a succeeded job is POSTed, signed, to callback_url; a failed answer is retried', async (t) => {
  const { headers } = await server.client();
  const first = await secretOf(headers);
  const secret = await secretOf(headers);
  t.not(secret, first, 'POST /webhooks/secret rotates it');
  const hook = await receiver(t, { '/hook': [500] });
  const sub = await submitJob(api, headers, 'sawt-mini', { voice_id: 'fusha-omar', text: BOOK_SPOKEN, callback_url: hook.url('/hook'), title: 'كتاب' });
  t.equal(sub.status, 202, JSON.stringify(sub.body));
  const job = (await pollJob(api, headers, sub.body.job_id, { until: (j) => j.webhook?.state === 'delivered' || j.webhook?.state === 'failed' })).at(-1);
  t.equal(job.status, 'succeeded');
  t.same(job.webhook, { state: 'delivered', attempts: 2, last_status: 200, last_error: null }, 'the 500 was retried');
  t.equal(hook.got.length, 2);
  for (const r of hook.got) {
    t.equal(r.headers['content-type'], 'application/json');
    t.ok(verify(secret, r.headers['sawt-signature'], r.body), 'signed with the current secret over "t.body"');
    t.notOk(verify(first, r.headers['sawt-signature'], r.body), 'not with the rotated one');
  }
  const body = JSON.parse(hook.got[1].body);
  t.equal(body.job_id, job.job_id);
  t.equal(body.status, 'succeeded');
  t.equal(body.title, 'كتاب');
  t.equal(body.characters, job.characters);
  t.equal(body.audio_seconds, job.audio_seconds);
  t.equal(body.error, null);
  t.equal(body.audio_url, `${api}/jobs/${job.job_id}/audio`);
  t.equal((await fetch(body.audio_url)).status, 401, 'audio_url needs the API key');
  const audio = await fetch(body.audio_url, { headers });
  t.equal(audio.status, 200);
  t.equal(audio.headers.get('content-type'), 'audio/mpeg');
});

t.test('redirects are not followed; delivery gives up when the retry window ends', async (t) => {
  const { headers } = await server.client();
  await secretOf(headers);
  const hook = await receiver(t, { '/moved': [302, 302, 302, 302, 302, 302, 302, 302, 302, 302, 302, 302, 302, 302, 302, 302] });
  const sub = await submitJob(api, headers, 'sawt-mini', { voice_id: 'fusha-omar', text: BOOK_SPOKEN, callback_url: hook.url('/moved') });
  const job = (await pollJob(api, headers, sub.body.job_id, { until: (j) => j.webhook?.state === 'failed' })).at(-1);
  t.equal(job.webhook.last_status, 302);
  t.equal(job.webhook.last_error, 'redirect not followed');
  t.ok(job.webhook.attempts >= 2, `retried (${job.webhook.attempts} attempts)`);
  t.same(hook.got.filter((r) => r.path !== '/moved'), [], 'the Location was never visited');
});

t.test('a canceled job is POSTed with status canceled and no audio', async (t) => {
  const { headers } = await server.client();
  const secret = await secretOf(headers);
  const hook = await receiver(t);
  const sub = await submitJob(api, headers, 'sawt-mini', { voice_id: 'fusha-omar', text: `${BOOK_SPOKEN}\n`.repeat(8), callback_url: hook.url('/hook') });
  const del = await fetch(`${api}/jobs/${sub.body.job_id}`, { method: 'DELETE', headers: { 'x-api-key': headers['x-api-key'] } });
  t.same(await del.json(), { job_id: sub.body.job_id, status: 'canceled' });
  await pollUntil('the cancel webhook', () => hook.got.length > 0);
  const r = hook.got[0];
  t.ok(verify(secret, r.headers['sawt-signature'], r.body));
  const body = JSON.parse(r.body);
  t.equal(body.status, 'canceled');
  t.equal(body.audio_url, null);
});

t.test('callback targets that resolve to non-public addresses are refused at submit', async (t) => {
  const { headers } = await server.client();
  await secretOf(headers);
  for (const url of ['http://127.0.0.2/hook', 'http://10.0.0.7/hook', 'http://192.168.1.1/x', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:8080/', 'http://[::ffff:127.0.0.2]/', 'http://0.0.0.0/', 'http://100.64.0.1/']) {
    const r = await submitJob(api, headers, 'sawt-mini', { voice_id: 'fusha-omar', text: BOOK_SPOKEN, callback_url: url });
    t.equal(r.status, 400, url);
    t.equal(r.body.errorCode, 40001, url);
    t.match(r.body.errorMessage, /non-public address/, url);
  }
  const ftp = await submitJob(api, headers, 'sawt-mini', { voice_id: 'fusha-omar', text: BOOK_SPOKEN, callback_url: 'ftp://example.com/x' });
  t.equal(ftp.status, 400);
  const unresolvable = await submitJob(api, headers, 'sawt-mini', { voice_id: 'fusha-omar', text: BOOK_SPOKEN, callback_url: 'http://no-such-host.invalid/x' });
  t.equal(unresolvable.status, 400);
  t.match(unresolvable.body.errorMessage, /does not resolve/);
});

t.test('`sawt accounts webhook-secret` makes the secret (shown once, as {"secret"}) that the running server signs with', async (t) => {
  const { account, headers } = await server.client();
  const sawt = (...args) => promisify(execFile)(process.execPath, [path.join(repoRoot, 'packages/cli/bin/sawt.js'), ...args], { env: { ...process.env, SAWT_DATA_DIR: dataDir, SAWT_MODELS_DIR: path.join(dataDir, 'models') } });
  const hook = await receiver(t);
  const refused = await submitJob(api, headers, 'sawt-mini', { voice_id: 'fusha-omar', text: BOOK_SPOKEN, callback_url: hook.url('/cli') });
  t.equal(refused.status, 400, 'no secret yet: callback_url is refused');
  const made = JSON.parse((await sawt('accounts', 'webhook-secret', '--account', account.id, '--json')).stdout);
  t.same(Object.keys(made), ['secret']);
  t.match(made.secret, /^whsec_[0-9a-f]{64}$/);
  const sub = await submitJob(api, headers, 'sawt-mini', { voice_id: 'fusha-omar', text: BOOK_SPOKEN, callback_url: hook.url('/cli') });
  t.equal(sub.status, 202, JSON.stringify(sub.body));
  await pollJob(api, headers, sub.body.job_id, { until: (j) => j.webhook?.state === 'delivered' || j.webhook?.state === 'failed' });
  t.equal(hook.got.length, 1);
  t.ok(verify(made.secret, hook.got[0].headers['sawt-signature'], hook.got[0].body), 'the webhook verifies with the secret the CLI printed');
  const unknown = await sawt('accounts', 'webhook-secret', '--account', 'nope').catch((e) => e);
  t.equal(unknown.code, 1, 'an unknown account: exit 1');
  t.match(unknown.stderr, /Account 'nope' not found/);
});
