// Clients that walk away at random moments of an upload endpoint's life (while
// the body is sent, while the server works, while it answers), then SIGTERM
// while a denoise and an HTTP stream run: the process stays up (and exits 0 on
// SIGTERM), no reservation stays open, and no file is left behind.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { LONG_TEXT, defaultConfigPath, pollUntil, tempDir } from '../helpers/server.js';
import { freePort, sawtJson, spawnServer } from '../helpers/spawned-server.js';
import { abortingPost, leftoverFiles, multipartBody } from '../helpers/abort-client.js';
import { noiseDir } from '../denoise/helpers.js';

const PREVIEW_TEXT = 'مرحبا بكم في خدمة صوت للنطق العربي.';

function openReservations(ledger) {
  const closed = new Set(ledger.filter((e) => e.kind === 'settle' || e.kind === 'release').map((e) => e.reservation_id));
  return ledger.filter((e) => e.kind === 'reserve' && !closed.has(e.reservation_id));
}

/** A config like the default with a short shutdown grace (so SIGTERM cancels work rather than waiting it out). */
function configFile(dir) {
  const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  config.plugins.find((p) => p.resolve === '@sawt/plugin-transport-http').options.shutdownGraceMs = 300;
  const file = path.join(dir, 'config.json');
  writeFileSync(file, JSON.stringify(config));
  return file;
}

const until = (what, fn, ms = 30_000) => pollUntil(what, fn, ms, 200);

t.test('20 clients aborting denoise, preview and clone at random moments, then SIGTERM during a denoise', async (t) => {
  const root = tempDir(t);
  const dataDir = path.join(root, 'data');
  const osTmp = tempDir(t, 'sawt-ostmp-');
  const env = { SAWT_DATA_DIR: dataDir, SAWT_PORT: String(await freePort()), SAWT_HOST: '127.0.0.1', SAWT_CONFIG: configFile(root), TMPDIR: osTmp };
  const srv = await spawnServer(t, env);
  const acc = await sawtJson(env, 'accounts', 'create', '--name', 'Aborts', '--plan', 'enterprise', '--balance', '100');
  const key = await sawtJson(env, 'keys', 'create', '--account', acc.id);
  const headers = { 'x-api-key': key.key };

  const tts = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ voice_id: 'egyptian-karim', text: LONG_TEXT, stability: 0.5, streaming: false }) });
  t.equal(tts.status, 200);
  const reference = Buffer.from(await tts.arrayBuffer());
  const noisy = readFileSync(path.join(noiseDir, 'asc_washing_machine.wav'));
  const requests = {
    denoise: () => ({ url: `${srv.api}/denoise`, ...multipartBody({}, { audio: noisy }) }),
    preview: () => ({ url: `${srv.api}/voices/preview`, ...multipartBody({ text: LONG_TEXT, similarity: '0.8', model_id: 'sawt-mini', speed: '1' }, { file: reference }) }),
    clone: () => ({ url: `${srv.api}/voices/clone`, ...multipartBody({ name: 'Aborted', text: PREVIEW_TEXT, stability: '0.5', model: 'sawt-mini' }, { voice_file: reference, reference_audio_file: reference }) }),
  };

  const phases = {};
  const kinds = Object.keys(requests);
  for (let i = 0; i < 20; i++) {
    const kind = kinds[i % kinds.length];
    const { url, body, contentType } = requests[kind]();
    const abortAfterMs = Math.round(Math.random() * 4000);
    const r = await abortingPost(url, { headers: { ...headers, 'content-type': contentType }, body, chunk: 32 * 1024, pauseMs: 10, abortAfterMs });
    phases[`${kind} ${r.phase}`] = (phases[`${kind} ${r.phase}`] ?? 0) + 1;
    t.equal(srv.child.exitCode, null, `the server is up after ${kind} aborted at ${abortAfterMs} ms (${r.phase})`);
  }
  t.comment(`aborts by endpoint and phase: ${JSON.stringify(phases)}`);
  t.equal((await fetch(`${srv.base}/healthz`)).status, 200, 'the server still answers');

  await until('every reservation released', async () => openReservations(await sawtJson(env, 'wallet', 'ledger', '--account', acc.id)).length === 0).catch(() => {});
  t.same(openReservations(await sawtJson(env, 'wallet', 'ledger', '--account', acc.id)), [], 'every reservation is closed');
  t.match(await sawtJson(env, 'wallet', 'show', '--account', acc.id), { reserved: 0 }, 'nothing stays reserved');
  await until('every temp file removed', () => leftoverFiles(path.join(dataDir, 'tmp')).length === 0 && leftoverFiles(osTmp).length === 0, 10_000).catch(() => {});
  t.same(leftoverFiles(path.join(dataDir, 'tmp')), [], 'no upload or work file stays in the process folder');
  t.same(leftoverFiles(osTmp), [], 'nothing in the OS temp dir');

  // SIGTERM while a denoise is being processed and an HTTP sawt-hts stream is being read slowly.
  const d0 = requests.denoise();
  const denoising = abortingPost(d0.url, { headers: { ...headers, 'content-type': d0.contentType }, body: d0.body, abortAfterMs: 120_000 });
  const stream = await fetch(`${srv.api}/text-to-speech/sawt-hts`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ voice_id: 'fusha-ziad', text: LONG_TEXT.repeat(4), stability: 0.5, streaming: true }) });
  t.equal(stream.status, 200);
  const reader = stream.body.getReader();
  await reader.read();
  await until('the denoise to be admitted', async () => openReservations(await sawtJson(env, 'wallet', 'ledger', '--account', acc.id)).length >= 2, 60_000);
  srv.kill('SIGTERM');
  const exit = await srv.exited;
  t.same(exit, { code: 0, signal: null }, 'SIGTERM ends the process with exit code 0');
  const d = await denoising;
  t.ok(d.phase !== 'done' || d.status === 503, `the denoise was cut short by the shutdown (${d.phase}, status ${d.status})`);
  reader.cancel().catch(() => {});
  t.notMatch(srv.output(), /unhandled promise rejection/, 'no promise was left unhandled');

  t.same(openReservations(await sawtJson(env, 'wallet', 'ledger', '--account', acc.id)), [], 'the shutdown released every reservation');
  t.match(await sawtJson(env, 'wallet', 'show', '--account', acc.id), { reserved: 0 });
  t.same(leftoverFiles(path.join(dataDir, 'tmp')), [], 'the process folder is gone');
  t.same(leftoverFiles(osTmp), [], 'nothing in the OS temp dir');
});
