// One temp folder per process under <SAWT_DATA_DIR>/tmp: a server killed with -9
// mid-upload leaves its folder, the next server on the data dir sweeps it at
// start-up (a live process's folder is kept), and a graceful stop removes its own.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { currentProcess } from '@sawt/core';
import { tempDir } from '../helpers/server.js';
import { freePort, sawtJson, spawnServer } from '../helpers/spawned-server.js';
import { abortingPost, leftoverFiles, multipartBody } from '../helpers/abort-client.js';

t.test('kill -9 mid-upload leaves the folder; the next start sweeps it; SIGTERM removes its own', async (t) => {
  const dataDir = tempDir(t);
  const tmp = path.join(dataDir, 'tmp');
  const env = { SAWT_DATA_DIR: dataDir, SAWT_PORT: String(await freePort()), SAWT_HOST: '127.0.0.1' };
  const first = await spawnServer(t, env);
  const acc = await sawtJson(env, 'accounts', 'create', '--name', 'Tmp', '--plan', 'enterprise', '--balance', '10');
  const key = await sawtJson(env, 'keys', 'create', '--account', acc.id);

  // An upload that never ends: its bytes are staged in the process folder.
  const { body, contentType } = multipartBody({}, { audio: Buffer.alloc(4 << 20, 7) });
  const upload = abortingPost(`${first.api}/denoise`, { headers: { 'x-api-key': key.key, 'content-type': contentType }, body: body.subarray(0, 2 << 20), chunk: 64 * 1024, pauseMs: 50, abortAfterMs: 60_000 });
  for (let i = 0; i < 100 && leftoverFiles(tmp).length === 0; i++) await sleep(100);
  const staged = leftoverFiles(tmp);
  t.equal(staged.length, 1, 'the upload is staged in a file');
  const folder = path.dirname(staged[0]);
  t.equal(path.dirname(folder), tmp, 'inside one folder of the process, under <SAWT_DATA_DIR>/tmp');
  t.match(JSON.parse(readFileSync(path.join(folder, 'owner.json'), 'utf8')), { pid: first.pid }, 'which names its owner');

  // A folder of a process that is still alive (this test) must survive the sweep.
  const live = path.join(tmp, `${process.pid}-live`);
  mkdirSync(live);
  writeFileSync(path.join(live, 'owner.json'), JSON.stringify(currentProcess(hostname())));
  writeFileSync(path.join(live, 'work.bin'), 'x');

  first.kill('SIGKILL');
  await first.exited;
  await upload;
  t.ok(existsSync(staged[0]), 'a killed process leaves its folder behind');

  const second = await spawnServer(t, env);
  t.notOk(existsSync(folder), 'the next server on the data dir swept it at start-up');
  t.match(second.output(), /removed the temp folders of processes that are gone/);
  t.ok(existsSync(path.join(live, 'work.bin')), "a live process's folder is kept");

  const r = await fetch(`${second.api}/denoise`, { method: 'POST', headers: { 'x-api-key': key.key, 'content-type': contentType }, body });
  t.equal(r.status, 400, 'a request stages in the new process folder');
  await r.arrayBuffer();
  second.kill('SIGTERM');
  t.same(await second.exited, { code: 0, signal: null });
  t.same(readdirSync(tmp), [path.basename(live)], "a graceful stop removes the process's own folder");
});
