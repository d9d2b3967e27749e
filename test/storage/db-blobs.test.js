// Blobs in the database (storage option blobs: 'database', what config/cluster.json
// uses): every node sharing the database reads what one wrote; nothing on disk.
import { existsSync } from 'node:fs';
import { Readable } from 'node:stream';
import t from 'tap';
import { tokens } from '@sawt/core';
import { bootDataLayer, freshPgDatabase } from './fixtures/boot.js';

async function exercise(t, storage) {
  const dataDir = t.testdir();
  const writer = await bootDataLayer(t, { dataDir, storage });
  const reader = await bootDataLayer(t, { dataDir, storage });
  const w = writer.get(tokens.blobStore);
  const r = reader.get(tokens.blobStore);
  const wav = Buffer.from(Array.from({ length: 70_000 }, (_, i) => i % 251));
  t.same(await w.put('voices/v1/sample.wav', wav), { key: 'voices/v1/sample.wav', size: wav.length });
  t.same(await w.put('voices/v1/stream.pcm', Readable.from([Buffer.alloc(1000, 1), Buffer.alloc(24, 2)])), { key: 'voices/v1/stream.pcm', size: 1024 });
  t.equal(await r.exists('voices/v1/sample.wav'), true, 'another process sees it');
  const chunks = [];
  for await (const c of await r.get('voices/v1/sample.wav')) chunks.push(c);
  t.ok(Buffer.concat(chunks).equals(wav), 'byte for byte');
  t.equal(r.localPath('voices/v1/sample.wav'), null, 'no local file');
  t.notOk(existsSync(`${dataDir}/blobs`), 'nothing written to the data dir');
  await w.put('voices/v1/sample.wav', Buffer.from('replaced'));
  t.equal((await r.get('voices/v1/sample.wav')).read().toString(), 'replaced');
  const failing = new Readable({ read() { this.push(Buffer.alloc(64)); this.destroy(new Error('client went away')); } });
  await t.rejects(w.put('voices/v2/partial.wav', failing), /client went away/);
  t.equal(await r.exists('voices/v2/partial.wav'), false, 'a failed upload stores nothing');
  await w.delete('voices/v1/sample.wav');
  await w.delete('voices/v1/sample.wav');
  await t.rejects(r.get('voices/v1/sample.wav'), { code: 40401 });
  for (const bad of ['../escape', '/etc/passwd', 'a//b', '']) await t.rejects(w.put(bad, Buffer.from('x')), /blob key/);
}

t.test('SQLite', (t) => exercise(t, { blobs: 'database' }));

t.test('PostgreSQL', { skip: process.env.SAWT_TEST_PG_URL ? false : 'SAWT_TEST_PG_URL is not set' }, async (t) => {
  const pg = await freshPgDatabase(t);
  t.teardown(() => pg.drop());
  await exercise(t, { client: 'pg', connection: pg.url, blobs: 'database' });
});
