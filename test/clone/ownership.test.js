// Cloned voices are owned, bounded and deletable: DELETE by the owner only (404
// for anyone else and for built-in voices) removes the record and its stored
// files; a per-plan limit on clones; the stored reference is a capped 24 kHz mono
// WAV, not the upload; the operator lists and deletes with `sawt voices`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { LONG_TEXT, parseWav, tempDir } from '../helpers/server.js';
import { freePort, sawtCli, sawtJson, spawnServer } from '../helpers/spawned-server.js';
import { cloneFields, postForm, referenceWav } from './helpers.js';

t.test('delete by the owner only, a per-plan limit, a capped stored reference, sawt voices list|delete', async (t) => {
  const dataDir = tempDir(t);
  const env = { SAWT_DATA_DIR: dataDir, SAWT_PORT: String(await freePort()), SAWT_HOST: '127.0.0.1' };
  const srv = await spawnServer(t, env);
  const owner = await sawtJson(env, 'accounts', 'create', '--name', 'Owner', '--plan', 'free', '--balance', '10');
  const ownerKey = await sawtJson(env, 'keys', 'create', '--account', owner.id);
  const other = await sawtJson(env, 'accounts', 'create', '--name', 'Other', '--plan', 'enterprise', '--balance', '10');
  const otherKey = await sawtJson(env, 'keys', 'create', '--account', other.id);
  const headers = { 'x-api-key': ownerKey.key, 'content-type': 'application/json' };
  // A 48 kHz stereo reference: what is stored must be 24 kHz mono.
  const ref24 = await referenceWav(srv, headers, 'egyptian-karim', LONG_TEXT);
  const ref = await import('node:child_process').then(({ execFileSync }) => execFileSync('ffmpeg', ['-v', 'error', '-f', 'wav', '-i', 'pipe:0', '-ar', '48000', '-ac', '2', '-f', 'wav', 'pipe:1'], { input: ref24, maxBuffer: 64 << 20 }));
  const clone = (key, name) => postForm(srv, '/voices/clone', key, cloneFields({ name }), { voice_file: ref24, reference_audio_file: ref });

  const made = [];
  for (let i = 0; i < 3; i++) {
    const r = await clone(ownerKey.key, `Voice ${i}`);
    t.equal(r.status, 200, JSON.stringify(r.json));
    made.push(r.json.voice_id);
  }
  const over = await clone(ownerKey.key, 'One too many');
  t.equal(over.status, 400, 'the free plan holds 3 clones');
  t.match(over.json, { errorCode: 40001, errorMessage: /holds 3 cloned voices, the limit of its plan \(free: 3\)/ });

  const stored = path.join(dataDir, 'blobs/voices', made[0]);
  const wav = parseWav(readFileSync(path.join(stored, 'reference.wav')));
  t.match(wav.fmt, { sampleRate: 24000, channels: 1 }, 'the stored reference is 24 kHz mono PCM16');

  const del = (id, key) => fetch(`${srv.api}/voices/${id}`, { method: 'DELETE', headers: { 'x-api-key': key } });
  let r = await del(made[0], otherKey.key);
  t.equal(r.status, 404, 'another account cannot delete it');
  t.match(await r.json(), { errorCode: 40401 });
  r = await del('fusha-omar', ownerKey.key);
  t.equal(r.status, 404, 'a built-in voice cannot be deleted');
  await r.arrayBuffer();
  r = await del(made[0], ownerKey.key);
  t.equal(r.status, 200);
  t.same(await r.json(), { voice_id: made[0], deleted: true });
  t.notOk(existsSync(stored) && readdirSync(stored).length, 'its stored files are gone');
  t.equal((await del(made[0], ownerKey.key)).status, 404, 'deleting twice: 404');
  const tts = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: made[0], text: LONG_TEXT, stability: 0.5, streaming: false }) });
  t.equal(tts.status, 404, 'the deleted voice no longer speaks');
  await tts.arrayBuffer();
  t.equal((await clone(ownerKey.key, 'Room again')).status, 200, 'a deletion frees a place under the limit');

  const listed = await sawtJson(env, 'voices', 'list', '--account', owner.id);
  t.equal(listed.length, 3);
  t.ok(listed.every((v) => v.account_id === owner.id && /^cv_/.test(v.voice_id)));
  t.notOk(listed.some((v) => v.voice_id === made[0]));
  const cli = await sawtCli(env, 'voices', 'delete', '--id', made[1]);
  t.equal(cli.code, 0, cli.stderr);
  t.equal((await sawtJson(env, 'voices', 'list', '--account', owner.id)).length, 2, 'the operator deleted one');
  const missing = await sawtCli(env, 'voices', 'delete', '--id', made[1]);
  t.not(missing.code, 0, 'deleting an unknown voice fails');
  t.match(missing.stderr, /not found/);
});
