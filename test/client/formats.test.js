// @sawt/client carries every output format and the timings routes: the bytes it returns decode
// (ffmpeg) as the format named; a stream's chunks concatenate to one valid file; timings cover the text.
import t from 'tap';
import { SawtClient, OUTPUT_FORMATS } from '@sawt/client';
import { OUTPUT_FORMAT_NAMES } from '@sawt/core';
import { startServer, SENTENCE } from '../helpers/server.js';
import { decode, FFPROBE_CODEC, FORMATS } from '../formats/decode.js';

const srv = await startServer(t);
const { key } = await srv.client({ plan: 'enterprise', balance: '100' });
const sawt = new SawtClient({ baseUrl: srv.base, apiKey: key.key });
const body = { voice_id: 'fusha-omar', text: SENTENCE, stability: 0.5 };
const spec = (name) => FORMATS.find((f) => f.name === name);
const concat = (chunks) => Buffer.concat(chunks.map((c) => Buffer.from(c.buffer, c.byteOffset, c.length)));

t.test('OUTPUT_FORMATS is the server\'s format table', async (t) => {
  t.same([...OUTPUT_FORMATS], [...OUTPUT_FORMAT_NAMES]);
});

for (const name of ['mp3_44100_64', 'opus_48000_32', 'flac_24000', 'ulaw_8000', 'pcm_16000']) {
  t.test(`${name}: whole and streamed`, async (t) => {
    const format = spec(name);
    const whole = await decode(Buffer.from(await sawt.textToSpeech('sawt-mini', { ...body, output_format: name })), format);
    t.equal(whole.codec, FFPROBE_CODEC[format.codec], `whole: ${whole.codec}`);
    t.equal(whole.sampleRate, format.sampleRate);
    t.ok(whole.seconds > 1 && whole.rms > 300, `whole: ${whole.seconds.toFixed(2)} s, rms ${whole.rms.toFixed(0)}`);
    const stream = sawt.streamTextToSpeech('sawt-mini', { ...body, output_format: name });
    t.equal(stream.format, name);
    t.equal(stream.sampleRate, format.sampleRate);
    const chunks = [];
    for await (const c of stream) chunks.push(c);
    const streamed = await decode(concat(chunks), format);
    t.equal(streamed.codec, FFPROBE_CODEC[format.codec], `streamed: ${chunks.length} chunks, ${streamed.codec}`);
    t.ok(Math.abs(streamed.seconds - whole.seconds) < 0.12, `streamed ${streamed.seconds.toFixed(3)} s, whole ${whole.seconds.toFixed(3)} s`);
  });
}

t.test('textToSpeechWithTimestamps: audio in the format, timings of every character', async (t) => {
  const { audio, alignment } = await sawt.textToSpeechWithTimestamps('sawt-mini', { ...body, output_format: 'mp3_44100_64' });
  const d = await decode(Buffer.from(audio), spec('mp3_44100_64'));
  t.equal(d.codec, 'mp3');
  t.equal(alignment.chars.join(''), SENTENCE, 'the text exactly as sent');
  t.equal(alignment.charStartTimesMs.length, alignment.chars.length);
  const end = alignment.charStartTimesMs.at(-1) + alignment.charDurationsMs.at(-1);
  t.ok(end <= d.seconds * 1000 + 1, `last character ends at ${end} ms, within ${(d.seconds * 1000).toFixed(0)} ms`);
});

t.test('streamTextToSpeechWithTimestamps: pieces in order, their characters the text', async (t) => {
  const pieces = [];
  for await (const p of sawt.streamTextToSpeechWithTimestamps('sawt-mini', { ...body, output_format: 'ulaw_8000' })) pieces.push(p);
  t.ok(pieces.length >= 1, `${pieces.length} pieces`);
  t.equal(pieces.map((p) => p.alignment?.chars.join('') ?? '').join(''), SENTENCE);
  const d = await decode(concat(pieces.map((p) => p.audio)), spec('ulaw_8000'));
  t.ok(d.seconds > 1 && d.rms > 300, `μ-law ${d.seconds.toFixed(2)} s, rms ${d.rms.toFixed(0)}`);
});

t.test('an unknown format is a ValidationError listing the formats', async (t) => {
  await t.rejects(sawt.textToSpeech('sawt-mini', { ...body, output_format: 'mp3_1' }), { errorCode: 40001, status: 400, message: /ulaw_8000/ });
});
