// POST /denoise over real HTTP: formats, output format, billing, errors, limits, temp-file cleanup.
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer, parseWav, tempDir } from '../helpers/server.js';
import { configWith, denoise, json, leftovers, makeAudio, multipart, post } from './helpers.js';

const work = tempDir(t, 'sawt-denoise-fixtures-');
const srv = await startServer(t, { config: await configWith({ maxFileBytes: 400 * 1024, maxDurationSeconds: 150, pricePerMinute: 0.01 }) });
const staging = srv.dataDir;
const { key, account } = await srv.client({ plan: 'enterprise', balance: '10' });

const settled = async (accountId) => {
  // Settling follows delivery; a loaded machine can take seconds.
  for (let i = 0; i < 500; i++) {
    const b = await srv.balance(accountId);
    if (b.reserved === 0) return b;
    await sleep(20);
  }
  return srv.balance(accountId);
};

/** Cleanup runs just after the response ends: waits up to ten seconds for it. */
const noLeftovers = async () => {
  for (let i = 0; i < 500 && leftovers(staging).length; i++) await sleep(20);
  return leftovers(staging).length;
};

t.test('each format is detected from the bytes and comes back as WAV PCM16 at its rate and channel count', async (t) => {
  const cases = [
    ['wav', 16000, 1, []], ['mp3', 44100, 2, []], ['flac', 22050, 1, []], ['ogg', 48000, 2, ['-c:a', 'libvorbis']],
    ['m4a', 44100, 1, ['-c:a', 'aac', '-movflags', '+faststart']], ['mkv', 32000, 2, ['-c:a', 'libopus', '-ar', '48000']],
  ];
  for (const [ext, rate, channels, args] of cases) {
    const file = makeAudio(path.join(work, `in.${ext}`), { seconds: 2, rate, channels, args });
    const r = await denoise(srv.api, key.key, readFileSync(file), 'upload.bin'); // the name says nothing
    t.equal(r.status, 200, `${ext}: 200`);
    t.equal(r.headers['content-type'], 'audio/wav');
    t.equal(r.headers['cache-control'], 'no-cache');
    t.ok(r.headers['x-request-id'], 'x-request-id');
    t.equal(Number(r.headers['content-length']), r.body.length, `${ext}: Content-Length matches`);
    const wav = parseWav(r.body);
    const expectRate = ext === 'mkv' ? 48000 : rate;
    t.same(wav.fmt, { format: 1, channels, sampleRate: expectRate, bitsPerSample: 16 }, `${ext}: PCM16 ${expectRate} Hz ${channels} ch`);
    const seconds = wav.data.length / 2 / channels / expectRate;
    t.ok(Math.abs(seconds - 2) < 0.1, `${ext}: duration kept (${seconds.toFixed(3)} s)`);
  }
  t.equal(await noLeftovers(), 0, 'no temporary files remain');
});

t.test('billing is per started minute at the configured price, settled after delivery', async (t) => {
  const c = await srv.client({ plan: 'enterprise', balance: '1' });
  for (const [seconds, minutes] of [[1, 1], [61, 2], [120.5, 3]]) {
    const before = (await settled(c.account.id)).balance;
    const file = makeAudio(path.join(work, `bill.ogg`), { seconds, rate: 8000, args: ['-c:a', 'libvorbis', '-q:a', '0'] });
    const r = await denoise(srv.api, c.key.key, readFileSync(file));
    t.equal(r.status, 200);
    const after = await settled(c.account.id);
    t.equal(before - after.balance, minutes * 10000, `${seconds} s costs ${minutes} × 0.01`);
  }
});

t.test('errors: 401, 403 scope, 402 balance, missing field, not audio, wrong content type', async (t) => {
  const wav = readFileSync(makeAudio(path.join(work, 'e.wav'), { seconds: 1 }));
  let r = await denoise(srv.api, 'sawt_nope', wav);
  t.equal(r.status, 401);
  t.equal(json(r).errorCode, 40101);
  t.ok(r.headers['x-request-id']);

  const scoped = await srv.createKey(account.id, { endpoints: ['tts'] });
  r = await denoise(srv.api, scoped.key, wav);
  t.equal(r.status, 403);
  t.equal(json(r).errorCode, 40302);

  const poor = await srv.client({ plan: 'enterprise', balance: '0.005' });
  r = await denoise(srv.api, poor.key.key, wav);
  t.equal(r.status, 402);
  t.equal(json(r).errorCode, 40201);
  t.equal((await srv.balance(poor.account.id)).balance, 5000, 'nothing charged');

  const m = multipart(null, null, null, { other: 'x' });
  r = await post(`${srv.api}/denoise`, { headers: { 'x-api-key': key.key, 'content-type': m.contentType }, body: m.body });
  t.equal(r.status, 400);
  t.same(json(r), { errorCode: 40001, errorMessage: 'audio is required and must be an audio file' });

  for (const [what, bytes] of [['text', Buffer.from('hello, this is not audio at all '.repeat(200))], ['png-like', Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(4000, 7)])], ['empty', Buffer.alloc(0)]]) {
    r = await denoise(srv.api, key.key, bytes, 'fake.wav');
    t.equal(r.status, 400, `${what}: 400`);
    t.equal(json(r).errorCode, 40001);
  }

  r = await post(`${srv.api}/denoise`, { headers: { 'x-api-key': key.key, 'content-type': 'application/json' }, body: Buffer.from('{}') });
  t.equal(r.status, 400);
  t.equal(json(r).errorCode, 40001);
  t.equal(await noLeftovers(), 0, 'no temporary files remain');
});

t.test('duration over the limit: 400 with the spec message, nothing charged', async (t) => {
  const c = await srv.client({ plan: 'enterprise', balance: '1' });
  const file = makeAudio(path.join(work, 'long.ogg'), { seconds: 151, rate: 8000, args: ['-c:a', 'libvorbis', '-q:a', '0'] });
  const r = await denoise(srv.api, c.key.key, readFileSync(file));
  t.equal(r.status, 400);
  t.same(json(r), { errorCode: 40001, errorMessage: 'Audio duration exceeds 150 seconds limit' });
  t.equal((await settled(c.account.id)).balance, 1000000);
  t.equal(await noLeftovers(), 0);
});

t.test('size over the limit: 400 while the client is still uploading', async (t) => {
  const total = 4 * 1024 * 1024;
  const m = multipart('audio', 'big.wav', Buffer.alloc(total, 1));
  const result = await new Promise((resolve, reject) => {
    let sent = 0;
    let answered = null;
    const req = http.request(`${srv.api}/denoise`, { method: 'POST', agent: false, headers: { 'x-api-key': key.key, 'content-type': m.contentType, 'content-length': m.body.length } }, (res) => {
      answered = sent;
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks), sentWhenAnswered: answered }));
    });
    req.on('error', (e) => (answered === null ? reject(e) : undefined));
    (async () => {
      while (sent < m.body.length && answered === null) {
        const n = Math.min(64 * 1024, m.body.length - sent);
        req.write(m.body.subarray(sent, sent + n));
        sent += n;
        await sleep(5);
      }
      if (answered === null) req.end();
    })();
  });
  t.equal(result.status, 400);
  t.same(JSON.parse(result.body), { errorCode: 40001, errorMessage: 'File size exceeds 400 KB limit' });
  t.ok(result.sentWhenAnswered < total / 2, `answered after ${result.sentWhenAnswered} of ${m.body.length} bytes`);
  t.equal(await noLeftovers(), 0, 'partial upload removed');
});

t.test('a client abort mid-upload leaves no temporary file and charges nothing', async (t) => {
  const c = await srv.client({ plan: 'enterprise', balance: '1' });
  const m = multipart('audio', 'a.wav', Buffer.alloc(300 * 1024, 3));
  const req = http.request(`${srv.api}/denoise`, { method: 'POST', agent: false, headers: { 'x-api-key': c.key.key, 'content-type': m.contentType, 'content-length': m.body.length } });
  req.on('error', () => {});
  req.write(m.body.subarray(0, 100 * 1024));
  await sleep(200);
  t.equal(leftovers(staging).length, 1, 'upload is being staged');
  req.destroy();
  t.equal(await noLeftovers(), 0, 'staged upload removed');
  t.equal((await srv.balance(c.account.id)).balance, 1000000);
});

t.test('OpenAPI documents POST /denoise with scope denoise', async (t) => {
  const doc = await (await fetch(`${srv.api}/openapi.json`)).json();
  t.equal(doc.paths['/denoise'].post['x-sawt-scope'], 'denoise');
  t.ok(doc.paths['/denoise'].post.requestBody.content['multipart/form-data']);
});
