// sawt-neural from the tiny stand-in voice (random weights: noise, with Piper's real I/O) placed in a
// temporary SAWT_MODELS_DIR under kareem's file names: catalog, HTTP (WAV and streaming), WebSocket
// (every output format, isFinal, alignment), client disconnect.
import t from 'tap';
import { LONG_TEXT, SENTENCE, parseWav, pcmStats, pollUntil, startServer } from '../helpers/server.js';
import { connect, wsConfig } from '../helpers/ws.js';
import { standinModelsDir } from './models-dir.js';

const srv = await startServer(t, { config: wsConfig(), runtime: { modelsDir: standinModelsDir(t) } });
const { headers, key } = await srv.client();
const body = { voice_id: 'neural-kareem', stability: 0.5 };
const tts = (b, h = headers) => fetch(`${srv.api}/text-to-speech/sawt-neural`, { method: 'POST', headers: h, body: JSON.stringify({ ...body, ...b }) });
const seconds = async (b) => pcmStats(parseWav(Buffer.from(await (await tts({ streaming: false, ...b })).arrayBuffer())).data).seconds;

t.test('sawt-neural is listed with its voice once the files are in SAWT_MODELS_DIR', async (t) => {
  const models = await (await fetch(`${srv.api}/models`, { headers })).json();
  const m = (models.models ?? models).find((x) => x.model_id === 'sawt-neural');
  t.ok(m, 'listed');
  const voices = await (await fetch(`${srv.api}/voices`, { headers })).json();
  t.ok((voices.voices ?? voices).some((v) => v.voice_id === 'neural-kareem'), 'voice listed');
});

t.test('WAV: 24 kHz PCM16; longer text and slower speed (larger length_scale) give longer audio', async (t) => {
  const res = await tts({ text: SENTENCE, streaming: false });
  t.equal(res.status, 200);
  const wav = parseWav(Buffer.from(await res.arrayBuffer()));
  t.same(wav.fmt, { format: 1, channels: 1, sampleRate: 24000, bitsPerSample: 16 });
  const short = pcmStats(wav.data);
  t.ok(short.seconds > 0.5 && short.rms > 1000, `audio: ${short.seconds.toFixed(2)} s, rms ${short.rms.toFixed(0)}`);
  const long = await seconds({ text: LONG_TEXT });
  t.ok(long > 3 * short.seconds, `long text ${long.toFixed(2)} s > 3 × ${short.seconds.toFixed(2)} s`);
  const slow = await seconds({ text: SENTENCE, speed: 0.7, stability: 1 });
  const fast = await seconds({ text: SENTENCE, speed: 1.2, stability: 1 });
  t.ok(slow > fast * 1.3, `speed 0.7 (length_scale 1.43): ${slow.toFixed(2)} s; speed 1.2 (0.83): ${fast.toFixed(2)} s`);
});

t.test('streaming: raw PCM16 in several chunks', async (t) => {
  const res = await tts({ text: LONG_TEXT, streaming: true });
  t.equal(res.status, 200);
  let chunks = 0;
  let bytes = 0;
  for await (const c of res.body) {
    chunks++;
    bytes += c.length;
  }
  t.ok(chunks > 3, `${chunks} chunks`);
  t.ok(bytes > 24000 * 2 * 3, `${bytes} bytes`);
});

t.test('WebSocket: every output format, one isFinal last, alignment', async (t) => {
  for (const format of ['pcm_8000', 'pcm_16000', 'pcm_22050', 'pcm_24000']) {
    const c = connect(srv);
    t.teardown(() => c.close?.());
    await c.opened;
    c.send({ type: 'initConnection', model_id: 'sawt-neural', voice_id: 'neural-kareem', x_api_key: key.key, output_format: format });
    c.send({ type: 'text', text: SENTENCE, flush: true });
    await c.until(() => c.audio().find((m) => m.isFinal));
    const a = c.audio();
    t.equal(a.filter((m) => m.isFinal).length, 1, `${format}: one isFinal`);
    t.ok(a.at(-1).isFinal, `${format}: the last message is final`);
    const rate = Number(format.slice(4));
    t.ok(a.every((m) => m.sampleRate === undefined || m.sampleRate === rate), `${format}: sample rate`);
    const bytes = a.reduce((n, m) => n + Buffer.from(m.audio, 'base64').length, 0);
    t.ok(bytes / 2 / rate > 0.5, `${format}: ${(bytes / 2 / rate).toFixed(2)} s of audio`);
    const als = a.filter((m) => m.alignment).map((m) => m.alignment);
    const chars = als.flatMap((al) => al.chars).join('');
    t.ok(chars.length > 5 && als.every((al) => al.chars.length === al.charStartTimesMs.length), `${format}: alignment (${chars.length} characters over ${als.length} messages)`);
    c.ws?.close();
  }
});

t.test('a client that disconnects mid-stream stops the ONNX work', async (t) => {
  const synth = srv.app.get((await import('@sawt/core')).tokens.synthesizer);
  const engine = synth.inner ?? synth;
  const piper = engine.backends.get('piper').loaded('sawt-neural');
  const piperJobs = () => engine.jobsInFlight().find((j) => j.engine === 'piper').jobs;
  const before = piper.session.stats();
  const ac = new AbortController();
  const res = await fetch(`${srv.api}/text-to-speech/sawt-neural`, { method: 'POST', headers, body: JSON.stringify({ ...body, text: LONG_TEXT.repeat(6), streaming: true }), signal: ac.signal });
  const reader = res.body.getReader();
  await reader.read();
  t.ok(piperJobs() > 0, 'the synthesis is under way');
  ac.abort();
  // The job ends when its generator has returned: no run can start after that.
  await pollUntil('the Piper job to end after the disconnect', () => piperJobs() === 0);
  const after = piper.session.stats();
  t.equal(after.pending, 0, 'no run queued or running');
  t.ok(after.started - before.started < 12, `${after.started - before.started} of about 20 sentences were run`);
});

t.test('a cloned voice on sawt-neural: the Piper voice is its base, its audio converted as sawt-mini clones are', async (t) => {
  const { cloneFields, postForm, previewFields, referenceWav } = await import('../clone/helpers.js');
  const ref = await referenceWav(srv, headers);
  const preview = await postForm(srv, '/voices/preview', key.key, previewFields({ model_id: 'sawt-neural' }), { file: ref });
  t.equal(preview.status, 200, preview.json ? JSON.stringify(preview.json) : 'audio');
  t.ok(preview.body.length > 24000, `${preview.body.length} bytes of preview audio`);
  const made = await postForm(srv, '/voices/clone', key.key, cloneFields({ model: 'sawt-neural' }), { voice_file: preview.body, reference_audio_file: ref });
  t.equal(made.status, 200, JSON.stringify(made.json));
  const res = await tts({ voice_id: made.json.voice_id, text: SENTENCE, streaming: false });
  t.equal(res.status, 200, res.status === 200 ? 'ok' : await res.clone().text());
  const audio = pcmStats(parseWav(Buffer.from(await res.arrayBuffer())).data);
  t.ok(audio.seconds > 0.5 && audio.rms > 100, `${audio.seconds.toFixed(2)} s, rms ${audio.rms.toFixed(0)}`);
});
