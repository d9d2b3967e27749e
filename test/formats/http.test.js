// Every output format over HTTP, whole and streamed, decoded by ffprobe/ffmpeg: codec, rate,
// channels, duration against the WAV's, audible; streamed MP3/Opus play from their first chunk.
// Requests go through fastify's inject() except the streamed ones, whose chunks as they arrive on
// the socket are the point.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServer, SENTENCE } from '../helpers/server.js';
import { checkedInjectFetch } from '../helpers/inject.js';
import { decode, FFPROBE_CODEC, FORMATS } from './decode.js';

const srv = await startServer(t);
const { headers } = await srv.client({ plan: 'enterprise', balance: '100' });
const base = { voice_id: 'fusha-omar', stability: 0.5, text: SENTENCE };
const injected = checkedInjectFetch(t, srv);
const request = (fetcher) => (body, query = '') => fetcher(`${srv.api}/text-to-speech/sawt-mini${query}`, { method: 'POST', headers, body: JSON.stringify({ ...base, ...body }) });
const tts = request(injected);
/** Over a real socket: for streamed answers, whose chunks are read as they arrive. */
const ttsOverSocket = request(fetch);

/** The body's chunks as they arrived. */
async function chunks(res) {
  const out = [];
  for await (const c of res.body) out.push(Buffer.from(c));
  return out;
}

const reference = await decode(Buffer.from(await (await tts({ streaming: false })).arrayBuffer()), FORMATS.find((f) => f.name === 'wav_24000'));

function checkAudio(t, got, format, what) {
  t.equal(got.codec, FFPROBE_CODEC[format.codec], `${what}: codec ${got.codec}`);
  t.equal(got.sampleRate, format.sampleRate, `${what}: sample rate`);
  t.equal(got.channels, 1, `${what}: mono`);
  // Frame codecs add their padding (MP3 ~50 ms, Opus/FLAC less); the resampler keeps the length.
  t.ok(Math.abs(got.seconds - reference.seconds) < 0.12, `${what}: lasts ${got.seconds.toFixed(3)} s, the WAV ${reference.seconds.toFixed(3)} s`);
  t.ok(got.rms > 300, `${what}: audible (rms ${got.rms.toFixed(0)})`);
}

for (const format of FORMATS) {
  t.test(`${format.name} whole and streamed`, async (t) => {
    const whole = await tts({ streaming: false, output_format: format.name });
    t.equal(whole.status, 200);
    t.equal(whole.headers.get('content-type'), format.contentType);
    const body = Buffer.from(await whole.arrayBuffer());
    t.equal(Number(whole.headers.get('content-length')), body.length, 'Content-Length matches the body');
    if (format.codec === 'wav') t.equal(body.readUInt32LE(4), body.length - 8, 'the whole WAV states its size');
    checkAudio(t, await decode(body, format), format, 'whole');

    const streamed = await ttsOverSocket({ streaming: true, output_format: format.name });
    t.equal(streamed.status, 200);
    t.equal(streamed.headers.get('content-type'), format.contentType);
    t.notOk(streamed.headers.get('content-length'), 'streamed: no Content-Length');
    const parts = await chunks(streamed);
    const all = Buffer.concat(parts);
    if (format.codec === 'wav') t.equal(all.readUInt32LE(40), 0xffffffff, 'streamed WAV: data size unknown (0xFFFFFFFF)');
    checkAudio(t, await decode(all, format), format, 'streamed');
    if (format.codec === 'mp3' || format.codec === 'opus') {
      const first = await decode(parts[0], format);
      t.equal(first.codec, FFPROBE_CODEC[format.codec], 'the first chunk alone is a stream');
      t.ok(first.samples > 0, `the first chunk alone decodes (${first.seconds.toFixed(3)} s of ${parts.length} chunks)`);
    }
  });
}

t.test('the body\'s output_format wins over the query\'s; the query alone is used', async (t) => {
  const both = await tts({ streaming: false, output_format: 'mp3_44100_64' }, '?output_format=ulaw_8000');
  t.equal(both.headers.get('content-type'), 'audio/mpeg');
  await both.arrayBuffer();
  const query = await tts({ streaming: false }, '?output_format=ulaw_8000');
  t.equal(query.headers.get('content-type'), 'audio/basic');
  t.equal((await decode(Buffer.from(await query.arrayBuffer()), FORMATS.find((f) => f.name === 'ulaw_8000'))).codec, 'pcm_mulaw');
});

t.test('an unknown format is 400 / 40001 listing the valid ones (body and query)', async (t) => {
  for (const [body, query] of [[{ output_format: 'mp3_44100_999' }, ''], [{}, '?output_format=aac_44100']]) {
    const res = await tts({ streaming: false, ...body }, query);
    t.equal(res.status, 400);
    const err = await res.json();
    t.equal(err.errorCode, 40001);
    for (const f of FORMATS) t.match(err.errorMessage, f.name);
  }
});

t.test('a whole FLAC states its length: ffprobe reads its duration from STREAMINFO', async (t) => {
  for (const name of ['flac_24000', 'flac_44100']) {
    const res = await tts({ streaming: false, output_format: name });
    t.equal(res.status, 200);
    const dir = mkdtempSync(path.join(tmpdir(), 'sawt-flac-'));
    try {
      const file = path.join(dir, 'audio.flac');
      writeFileSync(file, Buffer.from(await res.arrayBuffer()));
      // The header's total samples alone (no decoding): what a player shows before playing.
      const probe = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'stream=duration,duration_ts', '-of', 'json', file], { encoding: 'utf8' }));
      const seconds = Number(probe.streams[0].duration);
      t.ok(Number.isFinite(seconds), `${name}: ffprobe gives a duration (${probe.streams[0].duration})`);
      t.ok(Math.abs(seconds - reference.seconds) < 0.12, `${name}: ${seconds.toFixed(3)} s, the WAV ${reference.seconds.toFixed(3)} s`);
      const decoded = await decode(readFileSync(file), FORMATS.find((f) => f.name === name));
      t.equal(Number(probe.streams[0].duration_ts), decoded.samples, `${name}: the stated total is the samples decoded`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});
