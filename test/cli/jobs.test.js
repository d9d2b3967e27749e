// `sawt jobs submit|status|download|cancel` against a running server, as a user types them:
// a short Arabic text submitted, polled to its end, its audio and captions downloaded and
// decoded; a job canceled; the server's errors (a bad key) as one line and a non-zero exit.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { outputFormat } from '@sawt/core';
import { LONG_TEXT, parseWav, pcmStats, pollUntil, repoRoot, sawtBin, startServer, tempDir } from '../helpers/server.js';
import { sawtCli } from '../helpers/spawned-server.js';
import { decodeAudio, jobsConfig } from '../jobs/helpers.js';

const server = await startServer(t, { config: jobsConfig() });
const { key } = await server.client({ balance: '10' });
const dir = tempDir(t);
const env = { SAWT_SERVER: server.base, SAWT_API_KEY: key.key };
const TEXT = 'كان يا ما كان في قديم الزمان رجل يحب القراءة كثيرا. كان يقرأ كل يوم كتابا جديدا في مكتبة المدينة.';

async function jobStatus(id) {
  const r = await sawtCli(env, 'jobs', 'status', id, '--json');
  if (r.code !== 0) throw new Error(`jobs status failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

t.test('submit a text, follow its status, download its audio and captions', async (t) => {
  const sub = await sawtCli(env, 'jobs', 'submit', '--model', 'sawt-mini', '--voice', 'fusha-omar', '--text', TEXT, '--title', 'القارئ');
  t.equal(sub.code, 0, sub.stderr);
  const id = sub.stdout.trim();
  t.match(id, /^\S+$/, 'prints the job id alone');

  const job = await pollUntil('the job ends', async () => {
    const j = await jobStatus(id);
    return ['succeeded', 'failed', 'canceled'].includes(j.status) && j;
  }, 180_000, 200);
  t.equal(job.status, 'succeeded', JSON.stringify(job.error));
  t.equal(job.progress, 1);
  t.equal(job.title, 'القارئ');

  const text = await sawtCli(env, 'jobs', 'status', id);
  t.equal(text.code, 0, text.stderr);
  t.match(text.stdout, new RegExp(`^${id} succeeded, 100%, (\\d+)/\\1 characters, [\\d.]+ s of audio`), `status for people: ${text.stdout.trim()}`);

  const out = path.join(dir, 'book.mp3');
  const dl = await sawtCli(env, 'jobs', 'download', id, '--out', out);
  t.equal(dl.code, 0, dl.stderr);
  const audio = await decodeAudio(readFileSync(out), outputFormat('mp3_44100_64'));
  t.equal(audio.codec, 'mp3', 'ffprobe reads an MP3 (the default format)');
  t.ok(audio.seconds > 2, `${audio.seconds.toFixed(2)} s of audio`);
  t.ok(Math.abs(audio.seconds - job.audio_seconds) < 0.5, `as long as the job says (${job.audio_seconds} s)`);
  t.ok(audio.rms > 300, `not silence (rms ${Math.round(audio.rms)})`);
  t.same(readdirSync(dir).filter((f) => f.includes('.partial-')), [], 'no partial file left');

  const vtt = path.join(dir, 'book.vtt');
  const cap = await sawtCli(env, 'jobs', 'download', id, '--captions', 'vtt', '--out', vtt, '--json');
  t.equal(cap.code, 0, cap.stderr);
  t.match(JSON.parse(cap.stdout), { job_id: id, out: vtt });
  const cues = readFileSync(vtt, 'utf8');
  t.match(cues, /^WEBVTT/, 'a WebVTT file');
  t.match(cues, /مكتبة المدينة/, 'with the text\'s sentences');
});

t.test('a text file, --json, and cancel', async (t) => {
  const file = path.join(dir, 'long.txt');
  writeFileSync(file, Array.from({ length: 40 }, () => LONG_TEXT).join('\n\n'));
  const sub = await sawtCli({ SAWT_API_KEY: key.key }, 'jobs', 'submit', '--server', server.base, '--file', file, '--model', 'sawt-mini', '--voice', 'fusha-omar', '--format', 'opus_48000_64', '--json');
  t.equal(sub.code, 0, sub.stderr);
  const { job_id: id, status } = JSON.parse(sub.stdout);
  t.equal(status, 'queued');

  const cancel = await sawtCli(env, 'jobs', 'cancel', id);
  t.equal(cancel.code, 0, cancel.stderr);
  t.equal(cancel.stdout.trim(), `${id} canceled`);
  t.equal((await jobStatus(id)).status, 'canceled');

  const dl = await sawtCli(env, 'jobs', 'download', id, '--out', path.join(dir, 'never.opus'));
  t.equal(dl.code, 1, 'no audio for a canceled job');
  t.match(dl.stderr, /^sawt: the server answered 409 \(40901\): /, dl.stderr);
  t.notOk(readdirSync(dir).some((f) => f.startsWith('never.opus')), 'no file written');
});

t.test('errors: the server\'s message and a non-zero exit', async (t) => {
  const bad = await sawtCli({ ...env, SAWT_API_KEY: `sawt_${'0'.repeat(40)}` }, 'jobs', 'status', 'job_x');
  t.equal(bad.code, 1);
  t.match(bad.stderr, /^sawt: the server answered 401 \(40101\): \S/, bad.stderr.trim());

  const unknown = await sawtCli(env, 'jobs', 'status', 'job_of_nobody');
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /the server answered 404 \(40401\)/, unknown.stderr.trim());

  const short = await sawtCli(env, 'jobs', 'submit', '--model', 'sawt-mini', '--voice', 'fusha-omar', '--text', 'مرحبا');
  t.equal(short.code, 1);
  t.match(short.stderr, /the server answered 400 \(40001\)/, short.stderr.trim());

  const noServer = await sawtCli({ SAWT_SERVER: '', SAWT_API_KEY: '' }, 'jobs', 'status', 'job_x');
  t.equal(noServer.code, 2, 'a usage error');
  t.match(noServer.stderr, /--server URL \(or SAWT_SERVER\)/);

  const both = await sawtCli(env, 'jobs', 'submit', '--text', 'نص', '--file', 'x.txt');
  t.equal(both.code, 2);
  t.match(both.stderr, /--file FILE or --text TEXT/);
});
