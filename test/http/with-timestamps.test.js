// POST /text-to-speech/{model_id}/with-timestamps and …/stream/with-timestamps over a real server:
// the alignment covers the text exactly as sent, its times rise and end within the audio as
// decoded (ffmpeg), in WAV and MP3 (whose encoder delay shifts the times), whole and as NDJSON.
import t from 'tap';
import { billableChars } from '@sawt/core';
import { startServer, SENTENCE } from '../helpers/server.js';
import { decode, FORMATS } from '../formats/decode.js';
import { injectFetch } from './inject.js';

const srv = await startServer(t);
const fetch = injectFetch(srv);
const { account, headers } = await srv.client({ plan: 'enterprise', balance: '100' });
// Leading, doubled and trailing whitespace: the alignment must give it all back.
const TEXT = ` ${SENTENCE.replace(' ', '  ')}\n`;
const base = { voice_id: 'fusha-omar', stability: 0.5, text: TEXT };
const post = (path, body, query = '') => fetch(`${srv.api}/text-to-speech/sawt-mini/${path}${query}`, { method: 'POST', headers, body: JSON.stringify({ ...base, ...body }) });
const fmt = (name) => FORMATS.find((f) => f.name === name);

function checkAlignment(t, a, seconds, what) {
  t.equal(a.chars.join(''), TEXT, `${what}: the chars join to the text as sent`);
  t.equal(a.charStartTimesMs.length, a.chars.length, `${what}: a start per char`);
  t.equal(a.charDurationsMs.length, a.chars.length, `${what}: a duration per char`);
  let monotonic = true;
  for (let i = 1; i < a.chars.length; i++) if (a.charStartTimesMs[i] < a.charStartTimesMs[i - 1]) monotonic = false;
  t.ok(monotonic, `${what}: start times never go back`);
  t.ok(a.charDurationsMs.every((d) => d >= 0), `${what}: no negative duration`);
  const end = Math.max(...a.charStartTimesMs.map((s, i) => s + a.charDurationsMs[i]));
  t.ok(end <= seconds * 1000 + 2, `${what}: last character ends at ${end} ms, within the audio (${(seconds * 1000).toFixed(1)} ms)`);
  t.ok(end > seconds * 500, `${what}: the timings span the speech (${end} ms)`);
}

const firstWordStart = (a) => a.charStartTimesMs[a.chars.findIndex((c) => c.trim() !== '')];

const starts = {};
for (const name of ['wav_24000', 'mp3_44100_128', 'opus_48000_64', 'pcm_16000']) {
  t.test(`with-timestamps in ${name}`, async (t) => {
    const before = await srv.balance(account.id);
    const res = await post('with-timestamps', { output_format: name });
    t.equal(res.status, 200);
    t.match(res.headers.get('content-type'), /^application\/json/);
    const body = await res.json();
    t.same(Object.keys(body).sort(), ['alignment', 'audio_base64']);
    const audio = await decode(Buffer.from(body.audio_base64, 'base64'), fmt(name));
    t.ok(audio.rms > 300, 'audible audio');
    checkAlignment(t, body.alignment, audio.seconds, name);
    starts[name] = firstWordStart(body.alignment);
    const after = await srv.balance(account.id);
    t.equal(before.balance - after.balance, billableChars(TEXT) * 100, 'charged like the text-to-speech route: characters x cost per character');
    t.equal(after.reserved, 0, 'nothing left reserved');
  });
}

t.test('MP3 times include the encoder delay (1105 samples at 44.1 kHz ≈ 25 ms); Opus pre-skip is the decoder\'s', async (t) => {
  t.ok(Math.abs(starts.mp3_44100_128 - starts.wav_24000 - 25) <= 1, `first word at ${starts.mp3_44100_128} ms in MP3, ${starts.wav_24000} ms in WAV`);
  t.ok(Math.abs(starts.opus_48000_64 - starts.wav_24000) <= 1, 'Opus: same times as the WAV');
});

t.test('stream/with-timestamps: NDJSON chunks in order, mp3', async (t) => {
  const res = await post('stream/with-timestamps', { output_format: 'mp3_44100_64' });
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'application/x-ndjson');
  const text = await res.text();
  t.ok(text.endsWith('\n'), 'every object ends with a newline');
  const lines = text.trim().split('\n').map((l) => JSON.parse(l));
  t.ok(lines.length >= 2, `${lines.length} objects`);
  const all = { chars: [], charStartTimesMs: [], charDurationsMs: [] };
  for (const l of lines) {
    t.same(Object.keys(l).sort(), ['alignment', 'audio_base64']);
    if (l.alignment) for (const k of Object.keys(all)) all[k].push(...l.alignment[k]);
  }
  const audio = await decode(Buffer.concat(lines.map((l) => Buffer.from(l.audio_base64, 'base64'))), fmt('mp3_44100_64'));
  t.equal(audio.codec, 'mp3');
  checkAlignment(t, all, audio.seconds, 'streamed');
});

t.test('the query output_format counts; errors keep Sawt\'s shape', async (t) => {
  const res = await post('with-timestamps', {}, '?output_format=flac_24000');
  t.equal(res.status, 200);
  t.equal((await decode(Buffer.from((await res.json()).audio_base64, 'base64'), fmt('flac_24000'))).codec, 'flac');
  const bad = await post('with-timestamps', { output_format: 'aac' });
  t.equal(bad.status, 400);
  t.equal((await bad.json()).errorCode, 40001);
  const noKey = await fetch(`${srv.api}/text-to-speech/sawt-mini/with-timestamps`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(base) });
  t.equal(noKey.status, 401);
  t.equal((await noKey.json()).errorCode, 40101);
});

/** ms at which the speech in 16 kHz PCM ends: the end of the last 20 ms window above a quiet level. */
function speechEndMs(pcm) {
  const win = 320;
  let end = 0;
  for (let at = 0; at + win <= pcm.length / 2; at += win) {
    let sum = 0;
    for (let i = at; i < at + win; i++) sum += pcm.readInt16LE(2 * i) ** 2;
    if (Math.sqrt(sum / win) > 300) end = ((at + win) / 16000) * 1000;
  }
  return end;
}

// A number is read as several words (a phone number digit by digit, 1250 as three words): the
// words after it are timed where they are heard, not squeezed in after the number's first words.
for (const model of ['sawt-mini', 'sawt-hts']) {
  t.test(`${model}: words after a number are timed where they are spoken`, async (t) => {
    const text = 'اتصل على 0501234567 الآن من فضلك، وصل 1250 شخصا.';
    const res = await fetch(`${srv.api}/text-to-speech/${model}/with-timestamps`, { method: 'POST', headers, body: JSON.stringify({ ...base, text, output_format: 'pcm_16000' }) });
    t.equal(res.status, 200);
    const { alignment: a, audio_base64 } = await res.json();
    t.equal(a.chars.join(''), text, 'the chars join to the text');
    const speechMs = speechEndMs(Buffer.from(audio_base64, 'base64'));
    const startOf = (word) => a.charStartTimesMs[text.indexOf(word)];
    const end = Math.max(...a.charStartTimesMs.map((s, i) => s + a.charDurationsMs[i]));
    // The phone number is ten words of the sentence's 21: the word after it starts well past the first third.
    t.ok(startOf('الآن') > speechMs * 0.45, `'الآن' at ${startOf('الآن')} ms of ${speechMs} ms of speech`);
    t.ok(startOf('شخصا') > speechMs * 0.75, `'شخصا' at ${startOf('شخصا')} ms`);
    t.ok(end > speechMs - 600 && end <= speechMs + 600, `the last character ends at ${end} ms, where the speech ends (${speechMs} ms)`);
  });
}
