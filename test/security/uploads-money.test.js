// Issue 28, finding 3: uploads are neither decoded nor analysed before the plan's
// concurrency slot (and, for preview and denoise, the money) is taken, and the clone
// limit holds under parallel requests (count and insert are one atomic step).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { LONG_TEXT, startServer, tempDir } from '../helpers/server.js';
import { cloneFields, noise, postMultipart, previewFields, speechWav, uploadConfig } from './uploads-helpers.js';

const work = tempDir(t, 'sawt-upload-money-');
// Enterprise (no concurrency limit) may hold 3 clones here, so the atomic count is what stops the fourth.
const srv = await startServer(t, { config: uploadConfig({ http: { maxClonedVoices: { free: 3, enterprise: 3 } } }) });
const admin = await srv.client({ plan: 'enterprise', balance: '100' });
const speech = await speechWav(srv.api, admin.key.key, LONG_TEXT);
const longNoise = readFileSync(noise(path.join(work, 'noise300.wav'), 300, { rate: 24000 }));

const voicesOf = async (key) => {
  const v = await (await fetch(`${srv.api}/voices`, { headers: { 'x-api-key': key } })).json();
  return (Array.isArray(v) ? v : v.voices).filter((x) => x.voice_id.startsWith('cv_'));
};

t.test('preview with a wallet of 0.000001: 402 / 40201 before the upload is decoded or analysed', async (t) => {
  const c = await srv.client({ plan: 'enterprise', balance: '0.000001' });
  // 300 s of noise: analysed, it would be 400 "too little speech"; the wallet answers first.
  const r = await postMultipart(`${srv.api}/voices/preview`, c.key.key, { fields: previewFields(), files: { file: longNoise } });
  t.equal(r.status, 402);
  t.equal(r.json?.errorCode, 40201);
  t.match(r.json?.errorMessage, /balance/i);
});

t.test('denoise with a wallet of 0.000001: 402 / 40201', async (t) => {
  const c = await srv.client({ plan: 'enterprise', balance: '0.000001' });
  const r = await postMultipart(`${srv.api}/denoise`, c.key.key, { files: { audio: longNoise } });
  t.equal(r.status, 402);
  t.equal(r.json?.errorCode, 40201);
});

t.test('10 parallel clones on a plan that may hold 3: exactly 3 are made, the rest 400 naming the limit', async (t) => {
  const c = await srv.client({ plan: 'enterprise', balance: '0.000001' }); // clone is free
  const rs = await Promise.all(Array.from({ length: 10 }, (_, i) =>
    postMultipart(`${srv.api}/voices/clone`, c.key.key, { fields: cloneFields({ name: `v${i}` }), files: { voice_file: speech, reference_audio_file: speech } })));
  const statuses = rs.map((r) => r.status).sort();
  t.same(statuses, [200, 200, 200, 400, 400, 400, 400, 400, 400, 400], 'three made, seven refused');
  for (const r of rs.filter((x) => x.status === 400)) {
    t.equal(r.json.errorCode, 40001);
    t.match(r.json.errorMessage, /holds 3 cloned voices, the limit of its plan \(enterprise: 3\)/);
  }
  t.equal((await voicesOf(c.key.key)).length, 3, 'GET /voices lists three clones');
});

t.test('parallel clones on the free plan (1 concurrent request): 429 / 42901 for those beyond the slot, never more than 3 clones', async (t) => {
  const c = await srv.client({ plan: 'free', balance: '0.000001' });
  const rs = await Promise.all(Array.from({ length: 6 }, (_, i) =>
    postMultipart(`${srv.api}/voices/clone`, c.key.key, { fields: cloneFields({ name: `f${i}` }), files: { voice_file: speech, reference_audio_file: speech } })));
  const busy = rs.filter((r) => r.status === 429);
  t.ok(busy.length >= 1, `${busy.length} of 6 refused for concurrency`);
  for (const r of busy) {
    t.equal(r.json.errorCode, 42901);
    t.match(r.json.errorMessage, /your plan allows 1 concurrent request/);
  }
  t.ok(rs.every((r) => [200, 400, 429].includes(r.status)), rs.map((r) => r.status).join(' '));
  t.ok((await voicesOf(c.key.key)).length <= 3, 'at most 3 clones');
});

t.test('parallel denoise on the free plan: 429 / 42901 beyond the one slot', async (t) => {
  const c = await srv.client({ plan: 'free', balance: '10' });
  const rs = await Promise.all(Array.from({ length: 4 }, () => postMultipart(`${srv.api}/denoise`, c.key.key, { files: { audio: longNoise } })));
  const busy = rs.filter((r) => r.status === 429);
  t.ok(busy.length >= 1 && rs.some((r) => r.status === 200), rs.map((r) => r.status).join(' '));
  for (const r of busy) t.equal(r.json.errorCode, 42901);
});

t.test('OpenAPI documents 429 for preview, clone and denoise', async (t) => {
  const doc = await (await fetch(`${srv.api}/openapi.json`)).json();
  for (const p of ['/voices/preview', '/voices/clone', '/denoise']) {
    const op = (doc.paths[p] ?? doc.paths[`/api/v1${p}`])?.post;
    t.ok(op?.responses?.['429'], `${p}: 429 documented`);
    t.match(JSON.stringify(op?.responses?.['429'] ?? {}), /42901|[Cc]oncurrency/, `${p}: names the concurrency limit`);
  }
});
