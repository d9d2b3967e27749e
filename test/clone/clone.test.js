// Voice preview and cloning over HTTP and WebSocket: validation, billing, ownership, storage.
import http from 'node:http';
import { once } from 'node:events';
import t from 'tap';
import { LONG_TEXT, parseWav, pcmStats, startServer, tempDir } from '../helpers/server.js';
import { ready, wsConfig } from '../helpers/ws.js';
import { cloneFields, postForm, PREVIEW_TEXT, previewFields, referenceWav } from './helpers.js';

t.test('voice preview and cloning', async (t) => {
  const dataDir = tempDir(t);
  const srv = await startServer(t, { config: wsConfig(), runtime: { dataDir } });
  const owner = await srv.client({ plan: 'enterprise', balance: '100' });
  const other = await srv.client({ plan: 'enterprise', balance: '100' });
  const ref = await referenceWav(srv, owner.headers);
  const shortRef = await referenceWav(srv, owner.headers, 'egyptian-karim', 'مرحبا بكم هنا');

  t.test('preview validation messages', async (t) => {
    const cases = [
      [{ text: undefined }, 'text is required'],
      [{ similarity: undefined }, 'similarity must be a number between 0 and 1'],
      [{ similarity: '1.5' }, 'similarity must be a number between 0 and 1'],
      [{ similarity: 'abc' }, 'similarity must be a number between 0 and 1'],
      [{ speed: '2' }, 'speed must be a number between 0.7 and 1.2'],
      [{ model_id: undefined }, 'model_id is required'],
    ];
    for (const [o, msg] of cases) {
      const r = await postForm(srv, '/voices/preview', owner.key.key, previewFields(o), { file: ref });
      t.equal(r.status, 400, msg);
      t.same(r.json, { errorCode: 40001, errorMessage: msg });
    }
    let r = await postForm(srv, '/voices/preview', owner.key.key, previewFields(), {});
    t.same(r.json, { errorCode: 40001, errorMessage: 'file is required and must be of audio type' });
    r = await postForm(srv, '/voices/preview', owner.key.key, previewFields(), { file: Buffer.from('this is a text file, not audio at all. '.repeat(200)) });
    t.same(r.json, { errorCode: 40001, errorMessage: 'file is required and must be of audio type' }, 'non-audio bytes');
    r = await postForm(srv, '/voices/preview', owner.key.key, previewFields({ text: 'قصير' }), { file: ref });
    t.equal(r.json.errorCode, 40001, 'text too short');
    r = await postForm(srv, '/voices/preview', owner.key.key, previewFields({ model_id: 'nope' }), { file: ref });
    t.equal(r.status, 404);
    r = await postForm(srv, '/voices/preview', owner.key.key, previewFields(), { file: shortRef });
    t.equal(r.status, 400, 'too little speech');
    t.match(r.json.errorMessage, /too little speech/);
    r = await postForm(srv, '/voices/preview', 'bad-key', previewFields(), { file: ref });
    t.equal(r.status, 401);
  });

  let previewPcm;
  t.test('preview streams PCM and is billed for its text', async (t) => {
    const before = await srv.balance(owner.account.id);
    const r = await postForm(srv, '/voices/preview', owner.key.key, previewFields(), { file: ref });
    t.equal(r.status, 200, r.json ? JSON.stringify(r.json) : 'audio');
    t.equal(r.headers.get('content-type'), 'audio/raw;codec=pcm16;rate=24000;channels=1');
    t.equal(r.headers.get('cache-control'), 'no-cache');
    t.equal(r.headers.get('connection'), 'keep-alive');
    const s = pcmStats(r.body);
    t.ok(s.seconds > 1, `${s.seconds} s of audio`);
    t.ok(s.rms > 200, 'not silence');
    previewPcm = r.body;
    const after = await srv.balance(owner.account.id);
    t.equal(before.balance - after.balance, [...PREVIEW_TEXT.trim()].length * 100, 'charged chars × cost per char');
    const poor = await srv.client({ plan: 'enterprise', balance: '0.0001' });
    const r2 = await postForm(srv, '/voices/preview', poor.key.key, previewFields(), { file: ref });
    t.equal(r2.status, 402);
    const scoped = await srv.createKey(owner.account.id, { endpoints: ['tts'] });
    const r3 = await postForm(srv, '/voices/preview', scoped.key, previewFields(), { file: ref });
    t.equal(r3.status, 403);
  });

  t.test('clone validation messages', async (t) => {
    const files = { voice_file: previewPcm, reference_audio_file: ref };
    const cases = [
      [{}, { voice_file: undefined }, 'voice_file is required and must be a file'],
      [{}, { reference_audio_file: undefined }, 'reference_audio_file is required and must be a file'],
      [{ name: undefined }, {}, 'name is required'],
      [{ text: undefined }, {}, 'text is required'],
      [{ stability: '7' }, {}, 'stability must be a number between 0 and 1'],
      [{ stability: undefined }, {}, 'stability must be a number between 0 and 1'],
      [{ model: undefined }, {}, 'model is required'],
      // The optional fields follow the rules of a listed Voice (the OpenAPI schema is made from the same rules).
      [{ gender: 'robot' }, {}, 'gender must be one of male, female'],
      [{ gender: 'Male' }, {}, 'gender must be one of male, female'],
      [{ age: 'young' }, {}, 'age must be one of middle, elderly'],
      [{ languages: 'arabic!!, en' }, {}, 'languages must be comma-separated language codes, e.g. ar, en'],
      [{ dialects: 'fusha,<script>' }, {}, 'dialects must be comma-separated dialect names (letters, digits, - and _), e.g. fusha, egyptian'],
      [{ avatar_url: 'javascript:alert(1)' }, {}, 'avatar_url must be an http or https URL'],
      [{ avatar_url: 'not a url' }, {}, 'avatar_url must be an http or https URL'],
    ];
    for (const [o, f, msg] of cases) {
      const r = await postForm(srv, '/voices/clone', owner.key.key, cloneFields(o), { ...files, ...f });
      t.equal(r.status, 400, msg);
      t.same(r.json, { errorCode: 40001, errorMessage: msg });
    }
    // A voice_file sent as a text field is not a file.
    let r = await postForm(srv, '/voices/clone', owner.key.key, { ...cloneFields(), voice_file: 'abc' }, { reference_audio_file: ref });
    t.same(r.json, { errorCode: 40001, errorMessage: 'voice_file is required and must be a file' });
    r = await postForm(srv, '/voices/clone', owner.key.key, cloneFields(), { voice_file: previewPcm, reference_audio_file: Buffer.from('%PDF-1.4 not audio '.repeat(500)) });
    t.equal(r.status, 400, 'non-audio reference');
    r = await postForm(srv, '/voices/clone', owner.key.key, cloneFields(), { voice_file: Buffer.from('plain text, no audio here. '.repeat(500)), reference_audio_file: ref });
    t.equal(r.status, 400, 'non-audio voice_file');
    r = await postForm(srv, '/voices/clone', owner.key.key, cloneFields(), { voice_file: previewPcm, reference_audio_file: shortRef });
    t.equal(r.status, 400, 'too little speech');
  });

  let voiceId;
  t.test('clone record, free, listed for its owner only', async (t) => {
    const before = await srv.balance(owner.account.id);
    const r = await postForm(srv, '/voices/clone', owner.key.key, cloneFields({ description: 'Cloned', gender: 'male', age: 'middle', languages: 'ar, en', dialects: 'egyptian,fusha', avatar_url: 'https://example.com/a.png', stability: '0.4' }), { voice_file: previewPcm, reference_audio_file: ref });
    t.equal(r.status, 200, JSON.stringify(r.json));
    const v = r.json;
    t.match(v.id, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    t.match(v.voice_id, /^cv_[0-9a-f]+$/);
    t.same({ ...v, id: undefined, voice_id: undefined, sample_url: undefined }, {
      id: undefined, voice_id: undefined, sample_url: undefined, name: 'My voice', description: 'Cloned', gender: 'male', age: 'middle', languages: ['ar', 'en'],
      dialect: ['egyptian', 'fusha'], type: null, avatar_url: 'https://example.com/a.png', stability: 0.4,
    });
    t.equal(v.sample_url, `${srv.api}/voices/${v.voice_id}/sample`);
    t.equal((await fetch(v.sample_url)).status, 401, "a cloned voice's sample needs a key");
    t.equal((await fetch(v.sample_url, { headers: other.headers })).status, 404, "and another account's is not found");
    const sample = await fetch(v.sample_url, { headers: owner.headers });
    t.equal(sample.status, 200);
    t.equal(sample.headers.get('cache-control'), 'private, no-store', 'never kept by a shared cache');
    const wav = parseWav(Buffer.from(await sample.arrayBuffer()));
    t.equal(wav.fmt.sampleRate, 24000);
    t.equal(wav.data.length, previewPcm.length, 'the preview audio is the sample');
    t.equal((await srv.balance(owner.account.id)).balance, before.balance, 'clone is free');
    voiceId = v.voice_id;
    const mine = await (await fetch(`${srv.api}/voices`, { headers: owner.headers })).json();
    const listed = mine.find((x) => x.voice_id === voiceId);
    t.ok(listed, 'listed for the owner');
    t.equal(listed.sample_url, v.sample_url);
    const theirs = await (await fetch(`${srv.api}/voices`, { headers: other.headers })).json();
    t.notOk(theirs.some((x) => x.voice_id === voiceId), 'absent from another account');
    // A minimal clone has nulls and empty lists.
    const r2 = await postForm(srv, '/voices/clone', owner.key.key, cloneFields({ gender: '', age: ' ', languages: '', avatar_url: '' }), { voice_file: previewPcm, reference_audio_file: ref });
    t.equal(r2.status, 200, 'empty optional fields count as not given');
    t.match(r2.json, { description: null, gender: null, age: null, languages: [], dialect: [], avatar_url: null, stability: 0.5 });
  });

  t.test('clone used at once over HTTP; another account gets 404', async (t) => {
    const body = (extra = {}) => JSON.stringify({ voice_id: voiceId, text: PREVIEW_TEXT, stability: 0.5, streaming: false, ...extra });
    const r = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers: owner.headers, body: body() });
    t.equal(r.status, 200);
    const wav = parseWav(Buffer.from(await r.arrayBuffer()));
    t.ok(pcmStats(wav.data).seconds > 1);
    const s = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers: owner.headers, body: body({ streaming: true }) });
    t.equal(s.status, 200);
    t.ok(pcmStats(Buffer.from(await s.arrayBuffer())).rms > 200);
    const o = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers: other.headers, body: body() });
    t.equal(o.status, 404);
    t.equal((await o.json()).errorCode, 40401);
  });

  t.test('clone used at once over WebSocket; another account gets 404', async (t) => {
    const c = await ready(srv, owner.key.key, { voice_id: voiceId, output_format: 'pcm_16000' });
    t.ok(c.messages.find((m) => m.type === 'connectionInitialized'));
    c.send({ type: 'text', text: PREVIEW_TEXT, flush: true });
    await c.until(() => c.messages.find((m) => m.isFinal || m.type === 'error'));
    t.same(c.errors(), []);
    t.ok(c.pcmBytes() > 16000, `${c.pcmBytes()} bytes`);
    t.ok(c.audio().every((m) => m.sampleRate === 16000));
    c.send({ type: 'closeConnection' });
    const d = await ready(srv, other.key.key, { voice_id: voiceId });
    t.equal(d.errors()[0]?.errorCode, 40401);
    d.ws.close();
  });

  t.test('a preview counts toward the plan concurrency', async (t) => {
    const free = await srv.client({ plan: 'free', balance: '100' });
    // The first stream must still be open when the preview comes: a response the server has finished
    // frees its slot. A client that reads one chunk and then stops reading, and audio (~12 MB) well
    // past what localhost's socket buffers take (~4.4 MB measured); with fetch() and LONG_TEXT × 8
    // (6.3 MB) the whole response was sometimes sent before the preview, which then got 200.
    const first = await new Promise((resolve, reject) => {
      const req = http.request(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers: { 'x-api-key': free.key.key, 'content-type': 'application/json' } });
      req.once('response', resolve);
      req.once('error', reject);
      req.end(JSON.stringify({ voice_id: 'fusha-omar', text: LONG_TEXT.repeat(16), stability: 0.5, streaming: true }));
    });
    t.equal(first.statusCode, 200);
    await once(first, 'readable');
    t.ok(first.read(), 'the first chunk');
    const r = await postForm(srv, '/voices/preview', free.key.key, previewFields(), { file: ref });
    t.equal(r.status, 429);
    t.equal(r.json?.errorCode, 42901);
    first.destroy();
  });

  t.test('profile survives a restart on the same data dir', async (t) => {
    await srv.app.stop();
    const srv2 = await startServer(t, { config: wsConfig(), runtime: { dataDir } });
    const headers = { 'x-api-key': owner.key.key, 'content-type': 'application/json' };
    const list = await (await fetch(`${srv2.api}/voices`, { headers })).json();
    t.ok(list.some((v) => v.voice_id === voiceId));
    const r = await fetch(`${srv2.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: voiceId, text: PREVIEW_TEXT, stability: 0.5, streaming: false }) });
    t.equal(r.status, 200);
    const profile = JSON.parse(await import('node:fs').then((fs) => fs.readFileSync(`${dataDir}/blobs/voices/${voiceId}/profile.json`, 'utf8')).catch(() => '{}'));
    t.equal(profile.version ?? 1, 1);
  });
});
