// Submitting jobs on a server that renders none (runners: 0), so every job stays queued:
// the money held and given back by cancel, what a job without audio answers, another
// account's job, and the clear errors of bad input.
import t from 'tap';
import { billableChars, toMicro, tokens } from '@sawt/core';
import { startServer } from '../helpers/server.js';
import { BOOK_MD, BOOK_SPOKEN, jobsConfig, getJob, submitJob } from './helpers.js';

const server = await startServer(t, { config: jobsConfig({ runners: 0 }) });
const { api } = server;

/** A request without a body sends no content type. */
const keyOnly = (headers) => ({ 'x-api-key': headers['x-api-key'] });

function multipart(fields, file) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, String(v));
  if (file) form.append('file', new Blob([file]), 'book.md');
  return form;
}

t.test('cancel gives the reserved money back in full; a canceled job is then deleted', async (t) => {
  const { account, headers } = await server.client({ balance: '5' });
  const before = await server.balance(account.id);
  const sub = await submitJob(api, headers, 'sawt-hts', { voice_id: 'fusha-ziad', text: BOOK_MD });
  t.equal(sub.status, 202);
  const cost = billableChars(BOOK_SPOKEN) * toMicro('0.0002');
  t.equal((await server.balance(account.id)).available, before.available - cost, 'the price is held');
  const job = (await getJob(api, headers, sub.body.job_id)).body;
  t.equal(job.status, 'queued');
  t.equal(job.progress, 0);
  t.equal(job.cost, String(cost / 1e6));

  const audio = await fetch(`${api}/jobs/${job.job_id}/audio`, { headers });
  t.equal(audio.status, 409);
  t.equal((await audio.json()).errorCode, 40901, 'no audio until the job succeeds');
  for (const p of ['captions.vtt', 'captions.srt', 'chapters']) {
    const r = await fetch(`${api}/jobs/${job.job_id}/${p}`, { headers });
    t.equal(r.status, 409, p);
    t.equal((await r.json()).errorCode, 40901, p);
  }

  const del = await fetch(`${api}/jobs/${job.job_id}`, { method: 'DELETE', headers: keyOnly(headers) });
  t.equal(del.status, 200);
  t.same(await del.json(), { job_id: job.job_id, status: 'canceled' });
  const after = await server.balance(account.id);
  t.same({ balance: after.balance, reserved: after.reserved }, { balance: before.balance, reserved: 0 }, 'every reserved unit came back, nothing charged');
  const ledger = await server.app.get(tokens.wallet).ledger(account.id);
  t.same(ledger.filter((e) => e.reservationId).map((e) => [e.kind, e.amount]), [['release', cost], ['reserve', cost]]);
  t.equal((await getJob(api, headers, job.job_id)).body.status, 'canceled');
  const stillCanceled = await fetch(`${api}/jobs/${job.job_id}/audio`, { headers });
  t.equal(stillCanceled.status, 409);

  const gone = await fetch(`${api}/jobs/${job.job_id}`, { method: 'DELETE', headers: keyOnly(headers) });
  t.same(await gone.json(), { job_id: job.job_id, status: 'deleted' });
  t.equal((await getJob(api, headers, job.job_id)).status, 404);
  t.same((await server.balance(account.id)).balance, before.balance);
});

t.test("another account's job is not found", async (t) => {
  const owner = await server.client();
  const other = await server.client();
  const { body } = await submitJob(api, owner.headers, 'sawt-mini', { voice_id: 'fusha-omar', text: BOOK_SPOKEN });
  for (const [method, p] of [['GET', ''], ['GET', '/audio'], ['GET', '/captions.vtt'], ['GET', '/chapters'], ['DELETE', '']]) {
    const r = await fetch(`${api}/jobs/${body.job_id}${p}`, { method, headers: keyOnly(other.headers) });
    t.equal(r.status, 404, `${method} ${p || '/'}`);
    t.equal((await r.json()).errorCode, 40401);
  }
  t.same((await (await fetch(`${api}/jobs`, { headers: other.headers })).json()).jobs, [], 'not listed');
  t.equal((await getJob(api, owner.headers, body.job_id)).body.status, 'queued', 'untouched');
});

t.test('the list is paginated, newest first', async (t) => {
  const { headers } = await server.client();
  const ids = [];
  for (let i = 0; i < 5; i++) ids.push((await submitJob(api, headers, 'sawt-mini', { voice_id: 'fusha-omar', text: BOOK_SPOKEN, title: `كتاب ${i}` })).body.job_id);
  const seen = [];
  let cursor = null;
  do {
    const res = await (await fetch(`${api}/jobs?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { headers })).json();
    t.ok(res.jobs.length <= 2);
    seen.push(...res.jobs.map((j) => j.job_id));
    cursor = res.next_cursor;
  } while (cursor);
  t.same(seen, [...ids].reverse());
  const bad = await fetch(`${api}/jobs?limit=500`, { headers });
  t.equal(bad.status, 400);
});

t.test('a 1,000,000-character text fits the route; one more character is refused', async (t) => {
  const { account, headers } = await server.client({ balance: '1000' });
  const sentence = 'هذه جملة عربية للاختبار. ';
  const text = sentence.repeat(Math.ceil(1_000_000 / sentence.length)).slice(0, 1_000_000);
  const ok = await submitJob(api, headers, 'sawt-mini', { voice_id: 'fusha-omar', text });
  t.equal(ok.status, 202, JSON.stringify(ok.body).slice(0, 300));
  const job = (await getJob(api, headers, ok.body.job_id)).body;
  t.equal(job.characters, billableChars(text));
  await fetch(`${api}/jobs/${ok.body.job_id}`, { method: 'DELETE', headers: keyOnly(headers) });
  t.equal((await server.balance(account.id)).reserved, 0);
  const over = await submitJob(api, headers, 'sawt-mini', { voice_id: 'fusha-omar', text: `${text}ب` });
  t.equal(over.status, 400);
  t.equal(over.body.errorCode, 40001);
  t.match(over.body.errorMessage, /at most 1000000 characters/);
});

t.test('bad input gets clear errors', async (t) => {
  const { headers } = await server.client({ balance: '1' });
  const cases = [
    ['unknown model', 'no-such-model', { voice_id: 'fusha-omar', text: BOOK_SPOKEN }, 404, 40401, /Model 'no-such-model' not found/],
    ['unknown voice', 'sawt-mini', { voice_id: 'nobody', text: BOOK_SPOKEN }, 404, 40401, /Voice 'nobody' not found/],
    ['too short', 'sawt-mini', { voice_id: 'fusha-omar', text: 'كلمة' }, 400, 40001, /at least 3 words/],
    ['Markdown only markup', 'sawt-mini', { voice_id: 'fusha-omar', text: '# \n\n---\n\n```\n```', text_format: 'markdown' }, 400, 40001, /at least 3 words/],
    ['no text', 'sawt-mini', { voice_id: 'fusha-omar' }, 400, 40001, /text/],
    ['unknown format', 'sawt-mini', { voice_id: 'fusha-omar', text: BOOK_SPOKEN, output_format: 'aac_44100' }, 400, 40001, /output_format must be one of/],
    ['speed out of range', 'sawt-mini', { voice_id: 'fusha-omar', text: BOOK_SPOKEN, speed: 3 }, 400, 40001, /speed must be a number between 0.7 and 1.2/],
    ['callback without a secret', 'sawt-mini', { voice_id: 'fusha-omar', text: BOOK_SPOKEN, callback_url: 'https://example.com/hook' }, 400, 40001, /webhook secret/],
  ];
  for (const [what, model, body, status, code, message] of cases) {
    const r = await submitJob(api, headers, model, body);
    t.equal(r.status, status, what);
    t.equal(r.body.errorCode, code, what);
    t.match(r.body.errorMessage, message, what);
  }
  const poor = await server.client({ balance: '0.001' });
  const short = await submitJob(api, poor.headers, 'sawt-mini', { voice_id: 'fusha-omar', text: BOOK_SPOKEN });
  t.equal(short.status, 402);
  t.equal(short.body.errorCode, 40201);
  t.match(short.body.errorMessage, /required 0\.0\d+, available 0\.001/);

  const notJson = await fetch(`${api}/text-to-speech/sawt-mini/jobs`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{"voice_id":' });
  t.equal(notJson.status, 400);
});

t.test('a UTF-8 text or Markdown file as multipart `file`', async (t) => {
  const { headers } = await server.client();
  const h = { 'x-api-key': headers['x-api-key'] };
  const post = (form) => fetch(`${api}/text-to-speech/sawt-mini/jobs`, { method: 'POST', headers: h, body: form }).then(async (r) => ({ status: r.status, body: await r.json() }));
  const ok = await post(multipart({ voice_id: 'fusha-omar', output_format: 'wav_24000', speed: '1.1' }, Buffer.from(BOOK_MD)));
  t.equal(ok.status, 202, JSON.stringify(ok.body));
  const job = (await getJob(api, headers, ok.body.job_id)).body;
  t.equal(job.characters, billableChars(BOOK_SPOKEN), 'read as Markdown: its markup is not billed');
  t.equal(job.output_format, 'wav_24000');

  const bom = await post(multipart({ voice_id: 'fusha-omar' }, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(BOOK_SPOKEN)])));
  t.equal((await getJob(api, headers, bom.body.job_id)).body.characters, billableChars(BOOK_SPOKEN), 'a byte order mark is not text');

  const bad = [
    ['empty file', Buffer.alloc(0), /file is empty/],
    ['binary file', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0x3e, 0]), /binary/],
    ['Windows-1256 text', Buffer.from([0xc7, 0xe1, 0xd3, 0xe1, 0xc7, 0xe3, 0x20, 0xda, 0xe1, 0xed, 0xdf, 0xe3, 0x20, 0xe6, 0xd1, 0xcd, 0xe3, 0xc9]), /not UTF-8/],
  ];
  for (const [what, bytes, message] of bad) {
    const r = await post(multipart({ voice_id: 'fusha-omar' }, bytes));
    t.equal(r.status, 400, what);
    t.equal(r.body.errorCode, 40001, what);
    t.match(r.body.errorMessage, message, what);
  }
  const none = await post(multipart({ voice_id: 'fusha-omar' }));
  t.equal(none.status, 400);
  t.match(none.body.errorMessage, /file is required/);
  const tooBig = await post(multipart({ voice_id: 'fusha-omar' }, Buffer.alloc(4 * 1024 * 1024 + 1, 'a')));
  t.equal(tooBig.status, 400, 'over the file limit');
  t.equal(tooBig.body.errorCode, 40001);
});
