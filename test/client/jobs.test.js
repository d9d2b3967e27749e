// @sawt/client's jobs against a real server: create (JSON and a Markdown file), wait with
// progress, get, list, download (whole and a Range), captions, chapters, cancel; the server's
// errors as the client's typed errors with their errorCode.
import t from 'tap';
import { SawtClient, AuthenticationError, NotFoundError, SawtError, ValidationError } from '@sawt/client';
import { outputFormat } from '@sawt/core';
import { LONG_TEXT, startServer } from '../helpers/server.js';
import { BOOK_MD, decodeAudio, jobsConfig } from '../jobs/helpers.js';

const srv = await startServer(t, { config: jobsConfig() });
const { key } = await srv.client({ balance: '10' });
const sawt = new SawtClient({ baseUrl: srv.base, apiKey: key.key });

t.test('a Markdown file becomes a job: waited for, downloaded, with captions and chapters', async (t) => {
  const created = await sawt.jobs.create('sawt-mini', { voice_id: 'fusha-omar', file: new TextEncoder().encode(BOOK_MD), fileName: 'book.md', output_format: 'opus_48000_64', title: 'رحلة' });
  t.equal(created.status, 'queued');
  const seen = [];
  const job = await sawt.jobs.wait(created.job_id, { intervalMs: 100, onProgress: (j) => seen.push(j.progress) });
  t.equal(job.status, 'succeeded', JSON.stringify(job.error));
  t.equal(job.progress, 1);
  t.equal(job.title, 'رحلة');
  t.equal(job.output_format, 'opus_48000_64');
  for (let i = 1; i < seen.length; i++) t.ok(seen[i] >= seen[i - 1], 'progress never goes back');
  t.same(await sawt.jobs.get(created.job_id), job, 'get gives the same view once it has ended');

  const audio = await sawt.jobs.download(created.job_id);
  t.ok(audio instanceof Uint8Array);
  const decoded = await decodeAudio(Buffer.from(audio), outputFormat('opus_48000_64'));
  t.equal(decoded.codec, 'opus', 'ffprobe reads Ogg Opus');
  t.ok(Math.abs(decoded.seconds - job.audio_seconds) < 0.5, `${decoded.seconds.toFixed(2)} s, as the job says (${job.audio_seconds} s)`);
  t.ok(decoded.rms > 300, `not silence (rms ${Math.round(decoded.rms)})`);
  const head = await sawt.jobs.download(created.job_id, { range: { start: 0, end: 99 } });
  t.same(Buffer.from(head), Buffer.from(audio.subarray(0, 100)), 'a Range is the same bytes');

  t.match(await sawt.jobs.captions(created.job_id, 'srt'), /^1\r?\n\d\d:\d\d:\d\d,\d{3} --> /, 'SubRip captions');
  t.match(await sawt.jobs.captions(created.job_id), /^WEBVTT/, 'WebVTT by default');
  const { chapters } = await sawt.jobs.chapters(created.job_id);
  t.same(chapters.map((c) => c.title), ['الفصل الأول', 'الفصل الثاني'], 'chapters from the headings');

  const page = await sawt.jobs.list({ limit: 10 });
  t.ok(page.jobs.some((j) => j.job_id === created.job_id), 'listed');
});

t.test('cancel a queued job, list pages, and errors with their errorCode', async (t) => {
  const a = await sawt.jobs.create('sawt-mini', { voice_id: 'fusha-omar', text: Array.from({ length: 40 }, () => LONG_TEXT).join('\n\n') });
  t.same(await sawt.jobs.cancel(a.job_id), { job_id: a.job_id, status: 'canceled' });
  t.equal((await sawt.jobs.get(a.job_id)).status, 'canceled');
  const notYet = await sawt.jobs.download(a.job_id).catch((e) => e);
  t.ok(notYet instanceof SawtError, 'a canceled job has no audio');
  t.equal(notYet.errorCode, 40901);
  t.equal(notYet.status, 409);

  const first = await sawt.jobs.list({ limit: 1 });
  t.equal(first.jobs.length, 1);
  t.equal(first.jobs[0].job_id, a.job_id, 'newest first');
  t.type(first.next_cursor, 'string', 'a next page');
  const second = await sawt.jobs.list({ limit: 1, cursor: first.next_cursor });
  t.equal(second.jobs.length, 1);
  t.not(second.jobs[0].job_id, a.job_id, 'the next page moves on');

  t.same(await sawt.jobs.cancel(a.job_id), { job_id: a.job_id, status: 'deleted' }, 'a finished job is deleted');
  t.notOk((await sawt.jobs.list()).jobs.some((j) => j.job_id === a.job_id), 'and no longer listed');

  const missing = await sawt.jobs.get('no-such-job').catch((e) => e);
  t.ok(missing instanceof NotFoundError);
  t.equal(missing.errorCode, 40401);
  const short = await sawt.jobs.create('sawt-mini', { voice_id: 'fusha-omar', text: 'مرحبا' }).catch((e) => e);
  t.ok(short instanceof ValidationError);
  t.equal(short.errorCode, 40001);
  const bad = new SawtClient({ baseUrl: srv.base, apiKey: `sawt_${'0'.repeat(40)}` });
  const denied = await bad.jobs.list().catch((e) => e);
  t.ok(denied instanceof AuthenticationError);
  t.equal(denied.errorCode, 40101);
  await t.rejects(sawt.jobs.create('sawt-mini', { voice_id: 'fusha-omar', text: 'x', file: new Uint8Array(1) }), TypeError, 'text or file, not both');
});
