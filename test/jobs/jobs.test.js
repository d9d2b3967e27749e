// Long-form jobs end to end on a real server: a Markdown text submitted, polled to its end
// (progress never going back), its audio decoded by ffprobe/ffmpeg in several formats (one
// continuous stream), its captions and chapters, Range requests, and the money: the price
// reserved at submit and charged once.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { billableChars, outputFormat, toMicro } from '@sawt/core';
import { pollUntil, startServer } from '../helpers/server.js';
import { BOOK_MD, BOOK_SPOKEN, decodeAudio, jobsConfig, pollJob, submitJob } from './helpers.js';

const server = await startServer(t, { config: jobsConfig() });
const { api } = server;

/** Seconds of each Ogg packet (pts, duration in 48 kHz ticks) as ffprobe reads them. */
function oggPackets(bytes) {
  const dir = mkdtempSync(path.join(tmpdir(), 'sawt-job-'));
  try {
    const file = path.join(dir, 'a.opus');
    writeFileSync(file, bytes);
    const out = execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'a', '-show_entries', 'packet=pts,duration', '-of', 'csv=p=0', file], { encoding: 'utf8' });
    return out.split('\n').filter((l) => /^-?\d/.test(l)).map((l) => l.split(',').slice(0, 2).map(Number));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

t.test('a Markdown text becomes one MP3 with captions and chapters, charged once at the model price', async (t) => {
  const { account, headers } = await server.client({ balance: '10' });
  const before = await server.balance(account.id);
  const sub = await submitJob(api, headers, 'sawt-mini', { voice_id: 'fusha-omar', text: BOOK_MD, title: 'رحلة الرجل' });
  t.equal(sub.status, 202);
  t.same(Object.keys(sub.body).sort(), ['job_id', 'status']);
  t.equal(sub.body.status, 'queued');
  const chars = billableChars(BOOK_SPOKEN);
  const cost = chars * toMicro('0.0001');
  const held = await server.balance(account.id);
  t.equal(held.available, before.available - cost, 'the price is reserved at submit');

  const seen = await pollJob(api, headers, sub.body.job_id);
  const job = seen.at(-1);
  t.equal(job.status, 'succeeded', JSON.stringify(job.error));
  t.equal(job.progress, 1);
  t.equal(job.characters, chars, 'Markdown markup is not counted');
  t.equal(job.characters_done, chars);
  t.equal(job.title, 'رحلة الرجل');
  t.equal(job.output_format, 'mp3_44100_64', 'the default format');
  for (let i = 1; i < seen.length; i++) t.ok(seen[i].progress >= seen[i - 1].progress, `progress never goes back (${seen[i - 1].progress} → ${seen[i].progress})`);

  // The reservation is settled right after the job is marked succeeded.
  const after = await pollUntil('the reservation settled', async () => { const b = await server.balance(account.id); return b.reserved === 0 && b; });
  t.equal(after.balance, before.balance - cost, 'charged the price of its characters');
  t.equal(after.reserved, 0, 'nothing left reserved');
  const ledger = await server.app.get((await import('@sawt/core')).tokens.wallet).ledger(account.id);
  t.equal(ledger.filter((e) => e.kind === 'settle').length, 1, 'settled once');

  const audio = await fetch(`${api}/jobs/${job.job_id}/audio`, { headers });
  t.equal(audio.status, 200);
  t.equal(audio.headers.get('content-type'), 'audio/mpeg');
  t.equal(audio.headers.get('accept-ranges'), 'bytes');
  const bytes = Buffer.from(await audio.arrayBuffer());
  t.equal(Number(audio.headers.get('content-length')), bytes.length);
  const d = await decodeAudio(bytes, outputFormat('mp3_44100_64'));
  t.equal(d.codec, 'mp3');
  t.equal(d.sampleRate, 44100);
  t.equal(d.channels, 1);
  t.ok(Math.abs(d.seconds - job.audio_seconds) < 0.2, `decoded ${d.seconds} s, the job says ${job.audio_seconds} s`);
  t.ok(d.rms > 300, 'speech, not silence');

  const vtt = await fetch(`${api}/jobs/${job.job_id}/captions.vtt`, { headers });
  t.equal(vtt.status, 200);
  t.match(vtt.headers.get('content-type'), /^text\/vtt/);
  const text = await vtt.text();
  t.ok(text.startsWith('WEBVTT\n\n'));
  const toMs = (s) => { const [h, m, rest] = s.split(':'); return (Number(h) * 3600 + Number(m) * 60 + Number(rest.replace(',', '.'))) * 1000; };
  const cues = [...text.matchAll(/(\d\d:\d\d:\d\d\.\d{3}) --> (\d\d:\d\d:\d\d\.\d{3})\n([^\n]+)/g)].map((m) => ({ s: toMs(m[1]), e: toMs(m[2]), t: m[3] }));
  t.same(cues.map((c) => c.t), [
    'الفصل الأول.', 'كان يا ما كان في قديم الزمان رجل يحب القراءة كثيرا.', 'كان يقرأ كل يوم كتابا جديدا في مكتبة المدينة.', 'وفي يوم من الأيام وجد كتابا قديما عن البحر والسفن.',
    'الفصل الثاني.', 'قرر الرجل أن يسافر إلى البحر ليرى السفن بعينيه.', 'وهناك تعلم الصيد من البحارة الطيبين.',
  ], 'one cue per sentence, in order, markup dropped');
  t.equal(cues[0].s, 0, 'the first cue starts the audio');
  for (let i = 1; i < cues.length; i++) {
    t.equal(cues[i].s, cues[i - 1].e, `cue ${i + 1} starts where cue ${i} ends`);
    t.ok(cues[i].e > cues[i].s, `cue ${i + 1} lasts`);
  }
  t.ok(Math.abs(cues.at(-1).e / 1000 - d.seconds) < 0.2, `the cues cover the audio (${cues.at(-1).e} ms of ${d.seconds} s)`);

  const srt = await (await fetch(`${api}/jobs/${job.job_id}/captions.srt`, { headers })).text();
  t.match(srt, /^1\n00:00:00,000 --> 00:00:\d\d,\d{3}\nالفصل الأول\.\n\n2\n/);

  const chapters = await (await fetch(`${api}/jobs/${job.job_id}/chapters`, { headers })).json();
  t.same(chapters.chapters.map((c) => c.title), ['الفصل الأول', 'الفصل الثاني']);
  t.equal(chapters.chapters[0].start_seconds, 0);
  t.equal(chapters.chapters[1].start_seconds, cues[4].s / 1000, 'the second chapter starts at its heading\'s cue');

  const range = await fetch(`${api}/jobs/${job.job_id}/audio`, { headers: { ...headers, range: 'bytes=100-199' } });
  t.equal(range.status, 206);
  t.equal(range.headers.get('content-range'), `bytes 100-199/${bytes.length}`);
  t.same(Buffer.from(await range.arrayBuffer()), bytes.subarray(100, 200));
  const tail = await fetch(`${api}/jobs/${job.job_id}/audio`, { headers: { ...headers, range: `bytes=-50` } });
  t.same(Buffer.from(await tail.arrayBuffer()), bytes.subarray(bytes.length - 50));
  const past = await fetch(`${api}/jobs/${job.job_id}/audio`, { headers: { ...headers, range: `bytes=${bytes.length}-` } });
  t.equal(past.status, 416);
  t.equal(past.headers.get('content-range'), `bytes */${bytes.length}`);
  t.same(await past.json(), { errorCode: 41601, errorMessage: `The asked range starts past the end of the audio (${bytes.length} bytes)` }, 'a 416 says why, in the error shape');

  const list = await (await fetch(`${api}/jobs`, { headers })).json();
  t.same(list.jobs.map((j) => j.job_id), [job.job_id]);
  t.equal(list.next_cursor, null);
});

t.test('Opus, WAV and FLAC: one continuous stream across parts', async (t) => {
  const { headers } = await server.client({ balance: '10' });
  for (const name of ['opus_48000_64', 'wav_24000', 'flac_24000', 'flac_44100']) {
    const sub = await submitJob(api, headers, 'sawt-mini', { voice_id: 'fusha-layla', text: BOOK_SPOKEN, output_format: name });
    t.equal(sub.status, 202);
    const job = (await pollJob(api, headers, sub.body.job_id)).at(-1);
    t.equal(job.status, 'succeeded', name);
    const res = await fetch(`${api}/jobs/${job.job_id}/audio`, { headers });
    const format = outputFormat(name);
    t.equal(res.headers.get('content-type'), format.contentType);
    const bytes = Buffer.from(await res.arrayBuffer());
    const d = await decodeAudio(bytes, format);
    t.equal(d.sampleRate, format.sampleRate, `${name}: its rate`);
    t.ok(Math.abs(d.seconds - job.audio_seconds) < 0.1, `${name}: decoded ${d.seconds} s, the job says ${job.audio_seconds} s`);
    if (name === 'opus_48000_64') {
      const packets = oggPackets(bytes);
      t.ok(packets.length > 50);
      const gaps = packets.slice(1).filter(([pts], i) => pts !== packets[i][0] + packets[i][1]);
      t.same(gaps, [], 'each packet starts where the one before ends (granule positions continue across parts)');
    }
    if (name.startsWith('flac')) {
      // ffprobe's duration comes from STREAMINFO's total samples (0, "unknown", as the encoder writes it first).
      const dir = mkdtempSync(path.join(tmpdir(), 'sawt-job-flac-'));
      try {
        writeFileSync(path.join(dir, 'a.flac'), bytes);
        const probe = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=duration_ts', '-of', 'json', path.join(dir, 'a.flac')], { encoding: 'utf8' }));
        t.equal(Number(probe.streams[0].duration_ts), d.samples, `${name}: STREAMINFO gives the total samples (players show the duration)`);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
    if (name === 'wav_24000') {
      t.equal(bytes.toString('ascii', 0, 4), 'RIFF');
      t.equal(bytes.readUInt32LE(40), bytes.length - 44, 'the WAV states its data size');
      t.equal(Math.round(bytes.readUInt32LE(40) / 2 / 24), Math.round(job.audio_seconds * 1000), 'all the parts\' samples, none lost or added at the seams');
    }
  }
});

t.test('plain text: chapters are its blank-line sections', async (t) => {
  const { headers } = await server.client({ balance: '10' });
  const text = 'المقدمة القصيرة للكتاب.\n\nهذا هو القسم الأول من النص الطويل. فيه جملتان.\n\nوهذا هو القسم الثاني والأخير من النص.';
  const sub = await submitJob(api, headers, 'sawt-mini', { voice_id: 'fusha-omar', text, output_format: 'pcm_24000' });
  const job = (await pollJob(api, headers, sub.body.job_id)).at(-1);
  t.equal(job.status, 'succeeded');
  const { chapters } = await (await fetch(`${api}/jobs/${job.job_id}/chapters`, { headers })).json();
  t.same(chapters.map((c) => c.title), ['المقدمة القصيرة للكتاب.', 'هذا هو القسم الأول من النص الطويل. فيه جملتان.', 'وهذا هو القسم الثاني والأخير من النص.']);
  t.ok(chapters[0].start_seconds === 0 && chapters[1].start_seconds > 0 && chapters[2].start_seconds > chapters[1].start_seconds, 'in order');
});
