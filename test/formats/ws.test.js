// Every output format over the WebSocket: the messages of one flush concatenate to a stream
// ffmpeg decodes (codec, rate, mono, audible, sampleRate = the format's rate); two flushes on one
// connection make one valid stream; an unknown format is error 40001 listing the valid ones.
import t from 'tap';
import { SENTENCE } from '../helpers/server.js';
import { startWsServer, ready } from '../helpers/ws.js';
import { decode, FFPROBE_CODEC, FORMATS } from './decode.js';

const srv = await startWsServer(t);
const { key } = await srv.client({ plan: 'enterprise', balance: '100' });
const finals = (c, n) => () => c.audio().filter((m) => m.isFinal).length >= n;
const bytesOf = (msgs) => Buffer.concat(msgs.map((m) => Buffer.from(m.audio, 'base64')));

for (const format of FORMATS) {
  t.test(`${format.name} over the WebSocket`, async (t) => {
    const c = await ready(srv, key.key, { output_format: format.name });
    t.same(c.messages[0], { type: 'connectionInitialized' });
    c.send({ type: 'text', text: SENTENCE, flush: true });
    await c.until(finals(c, 1));
    const first = c.audio();
    t.ok(first.every((m) => m.sampleRate === format.sampleRate), `sampleRate ${format.sampleRate}`);
    const one = await decode(bytesOf(first), format);
    t.equal(one.codec, FFPROBE_CODEC[format.codec]);
    t.equal(one.sampleRate, format.sampleRate);
    t.equal(one.channels, 1);
    t.ok(one.seconds > 1, `one flush: ${one.seconds.toFixed(3)} s`);
    t.ok(one.rms > 300, `audible (rms ${one.rms.toFixed(0)})`);
    c.send({ type: 'text', text: SENTENCE, flush: true });
    await c.until(finals(c, 2));
    const both = await decode(bytesOf(c.audio()), format);
    t.equal(both.codec, FFPROBE_CODEC[format.codec]);
    t.ok(Math.abs(both.seconds - 2 * one.seconds) < 0.2, `two flushes make one stream of ${both.seconds.toFixed(3)} s (2 × ${one.seconds.toFixed(3)})`);
    t.equal(c.errors().length, 0, 'no errors');
    c.ws.close();
  });
}

t.test('an unknown output_format is error 40001 listing the valid formats', async (t) => {
  const c = await ready(srv, key.key, { output_format: 'mp3_48000_320' });
  const [err] = c.errors();
  t.equal(err?.errorCode, 40001);
  for (const f of FORMATS) t.match(err.errorMessage, f.name);
  c.ws.close();
});

t.test('an MP3 connection\'s alignment counts from the start of the audio as played (its encoder delay)', async (t) => {
  const starts = async (output_format) => {
    const c = await ready(srv, key.key, output_format ? { output_format } : {});
    c.send({ type: 'text', text: SENTENCE, flush: true });
    await c.until(finals(c, 1));
    // The alignments of the flush's messages, one after another (messages may group chunks differently).
    const all = c.audio().flatMap((m) => m.alignment?.charStartTimesMs ?? []);
    c.ws.close();
    return all;
  };
  const pcm = await starts(null);
  const mp3 = await starts('mp3_44100_64');
  const opus = await starts('opus_48000_64');
  // 1105 samples at 44.1 kHz: LAME's delay and the decoder's, played before the speech.
  t.ok(Math.abs(mp3[0] - pcm[0] - (1105 / 44100) * 1000) < 1, `MP3's first start ${mp3[0]} ms, PCM's ${pcm[0]} ms`);
  // espeak's timing varies by about 1 % from run to run and messages group characters differently,
  // so later characters are compared by what holds whatever the run: none starts inside the delay.
  t.ok(mp3.length > 10 && mp3.every((s) => s >= (1105 / 44100) * 1000 - 0.5), 'no character of the MP3 flush starts inside the encoder delay');
  t.equal(opus[0], pcm[0], 'Opus needs no shift (players drop its pre-skip)');
});
