// npm run soak [-- --minutes N] [--plans free,basic,starter] [--sample-seconds 30]
//
// Mixed traffic at plan limits against a spawned `sawt serve` (its own data dir,
// port and temp dir): one client loop per concurrent request each account's plan
// allows, every loop picking HTTP streaming or WAV text-to-speech, a WebSocket
// session, a voice preview, a clone (then deleted) or a denoise, with random
// client aborts (during upload, processing or the answer) and slow readers, plus
// an occasional request over the plan's limit. It reports 5xx answers, crashes
// (the server is restarted and the soak goes on), the server's RSS every
// --sample-seconds with the slope after warm-up, and at the end checks for every
// account that balance = top-ups − settled and reserved = open reservations = 0
// (through the admin CLI's wallet ledger), that the temp folders are empty, and
// that SIGTERM stops the server with exit code 0. Results: bench/results/soak-<date>.json.
// Exit status 1 when a target is missed (5xx, crash, invariant, leftover files, shutdown).
import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { TEXT, VOICES, here, machine, round, writeResults } from './harness.js';
import { classify, httpRequest, multipartBody, wsSession } from './soak-traffic.js';
import { leftoverFiles } from '../test/helpers/abort-client.js';

const { values: opts } = parseArgs({
  options: { minutes: { type: 'string', default: '10' }, plans: { type: 'string', default: 'free,basic,starter' }, 'sample-seconds': { type: 'string', default: '30' } },
});
const minutes = Number(opts.minutes);
const sampleSeconds = Number(opts['sample-seconds']);
const PLAN_LIMIT = { free: 1, basic: 2, starter: 5, growth: 10, scale: 20, enterprise: 8 };
const plans = opts.plans.split(',').map((s) => s.trim()).filter(Boolean);
if (!(minutes > 0) || !(sampleSeconds > 0) || plans.some((p) => !(p in PLAN_LIMIT))) {
  console.error(`usage: npm run soak -- [--minutes N] [--plans ${Object.keys(PLAN_LIMIT).join(',')}] [--sample-seconds S]`);
  process.exit(2);
}

const repo = path.resolve(here, '..');
const bin = path.join(repo, 'packages/cli/bin/sawt.js');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pick = (arr) => arr[Math.floor(Math.random() * arr.length)];
const chance = (p) => Math.random() < p;

// ---------- the server under test ----------

const root = mkdtempSync(path.join(tmpdir(), 'sawt-soak-'));
const dataDir = path.join(root, 'data');
const osTmp = path.join(root, 'os-tmp');
mkdirSync(osTmp, { recursive: true });
const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
// TMPDIR: files a request puts in the OS temp dir land where the soak can check them.
// The shared model files (HTS voice, diacritizer, DeepFilterNet3) when present, as the benches use them.
const sharedModels = path.resolve(repo, '../shared/models');
const modelsDir = process.env.SAWT_MODELS_DIR ?? (existsSync(sharedModels) ? sharedModels : undefined);
const env = { ...process.env, ...(modelsDir && { SAWT_MODELS_DIR: modelsDir }), SAWT_DATA_DIR: dataDir, SAWT_PORT: String(port), SAWT_HOST: '127.0.0.1', SAWT_LOG_LEVEL: process.env.SAWT_LOG_LEVEL ?? 'warn', TMPDIR: osTmp };
const cli = async (...args) => {
  const { stdout } = await promisify(execFile)(process.execPath, [bin, ...args, '--json'], { env, cwd: repo, maxBuffer: 256 << 20 });
  return JSON.parse(stdout);
};

const crashes = [];
let server = null;
let stopping = false;
let logTail = '';

async function startServer() {
  // One process (the soak watches its pid and memory); sawt serve would fork one per core.
  // As users run it: the bin as a program (its first line starts Node with node-flags.sh's options).
  const child = spawn(bin, ['serve'], { env: { SAWT_WORKERS: '1', ...env }, cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (d) => {
    logTail = (logTail + d).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  child.on('exit', (code, signal) => {
    if (stopping && child === server?.child) return;
    crashes.push({ at: new Date().toISOString(), code, signal, logTail: logTail.slice(-4000) });
    console.error(`soak: the server exited (code ${code}, signal ${signal}); restarting`);
    if (!stopping) void startServer().catch((e) => console.error(`soak: restart failed: ${e.message}`));
  });
  server = { child, pid: child.pid, exited: new Promise((r) => child.once('exit', (code, signal) => r({ code, signal }))) };
  for (let i = 0; i < 600; i++) {
    if (await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false)) return server;
    if (child.exitCode !== null) throw new Error(`sawt serve exited while starting:\n${logTail}`);
    await sleep(100);
  }
  throw new Error(`sawt serve did not become healthy:\n${logTail}`);
}

function rssMB(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? round(Number(m[1]) / 1024, 1) : null;
  } catch {
    return null;
  }
}

/** Least-squares slope of (seconds, MB) points, in MB per minute. */
function slopePerMinute(points) {
  if (points.length < 2) return null;
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.t, 0) / n;
  const my = points.reduce((s, p) => s + p.mb, 0) / n;
  const sxy = points.reduce((s, p) => s + (p.t - mx) * (p.mb - my), 0);
  const sxx = points.reduce((s, p) => s + (p.t - mx) ** 2, 0);
  return sxx ? round((sxy / sxx) * 60, 3) : null;
}

/**
 * Files ONNX Runtime 1.30's telemetry writes into $TMPDIR when a process starts its
 * environment (an empty mat-debug-<pid>.log and .ses); the engine removes them at once,
 * and they count as leftovers like any other file. Their count is reported apart too.
 */
const ORT_FILES = /^(mat-debug-\d+\.log|\.ses)$/;

/** Files under `dir` (recursively) left by requests, relative to the soak's root folder (leftoverFiles skips owner markers). */
const filesUnder = (dir) => leftoverFiles(dir).map((p) => path.relative(root, p));

// ---------- set-up: accounts at their plans, test audio ----------

await startServer();
console.error(`soak: server pid ${server.pid} on port ${port}, data in ${dataDir}; ${minutes} min of traffic for plans ${plans.join(', ')}`);
const accounts = [];
for (const plan of plans) {
  const account = await cli('accounts', 'create', '--name', `soak ${plan}`, '--plan', plan, '--balance', '100000');
  const key = await cli('keys', 'create', '--account', account.id);
  accounts.push({ plan, id: account.id, key: key.key, limit: PLAN_LIMIT[plan] });
}
const jsonHeaders = (key) => ({ 'x-api-key': key, 'content-type': 'application/json' });
const models = (await (await fetch(`http://127.0.0.1:${port}/api/v1/models`, { headers: { 'x-api-key': accounts[0].key } })).json()).map((m) => m.model_id);

// A reference recording for preview/clone: another voice reading a long text (the server's own TTS, WAV).
const LONG = `${TEXT} ${TEXT}`;
const refRes = await fetch(`http://127.0.0.1:${port}/api/v1/text-to-speech/sawt-mini`, { method: 'POST', headers: jsonHeaders(accounts[0].key), body: JSON.stringify({ voice_id: 'egyptian-karim', text: LONG, stability: 0.5, streaming: false }) });
if (refRes.status !== 200) throw new Error(`could not make the reference recording: ${refRes.status} ${await refRes.text()}`);
const reference = Buffer.from(await refRes.arrayBuffer());
// A noisy clip for denoise: 6 s of the shared test recording when present, else a tone in pink noise.
const sharedNoisy = path.resolve(repo, '../shared/testdata/noise/noisy_speech_en_snr0.wav');
const clipFile = path.join(root, 'noisy.wav');
execFileSync('ffmpeg', ['-v', 'error', '-y',
  ...(existsSync(sharedNoisy) ? ['-i', sharedNoisy, '-t', '6'] : ['-f', 'lavfi', '-i', 'sine=frequency=300:duration=6', '-f', 'lavfi', '-i', 'anoisesrc=color=pink:amplitude=0.1:duration=6', '-filter_complex', 'amix=inputs=2']),
  '-ar', '16000', '-ac', '1', clipFile]);
const noisy = readFileSync(clipFile);

const SENTENCES = [
  'مرحبا بكم في خدمة صوت للنطق العربي.',
  TEXT,
  LONG,
  'الساعة الآن 10:45 والحرارة 23 درجة، وسعر الصرف 3.75 ريال للدولار.',
];

// ---------- traffic ----------

const stats = {};
const statuses = {};
const fiveXX = [];
const disconnects = [];
function record(kind, r) {
  stats[kind] ??= {};
  stats[kind][r.outcome] = (stats[kind][r.outcome] ?? 0) + 1;
  if (r.status !== null && r.status !== undefined) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
  if (r.outcome === 'server-error' && fiveXX.length < 30) fiveXX.push({ kind, status: r.status, detail: r.detail ?? r.json?.slice(0, 300) ?? null });
  if ((r.outcome === 'disconnected' || r.outcome === 'timeout') && disconnects.length < 30) disconnects.push({ kind, detail: r.detail, at: new Date().toISOString() });
}

/** Abort plan for one request: none (55%), during the upload, after some of the answer, or at a random moment; or a slow reader. */
function misbehaviour(hasUpload) {
  const r = Math.random();
  if (r < 0.55) return {};
  if (r < 0.7) return { slowReadMs: 100 + Math.floor(Math.random() * 200) };
  if (r < 0.8 && hasUpload) return { abort: { atUploadFraction: Math.random() } };
  if (r < 0.9) return { abort: { afterResponseBytes: 1 + Math.floor(Math.random() * 200_000) } };
  return { abort: { afterMs: Math.floor(Math.random() * 3000) } };
}

/** The HTS model's own voices (the espeak voices are not offered with it). */
const HTS_VOICES = ['fusha-ziad', 'fusha-sami'];

async function tts(acc, streaming) {
  const hts = chance(0.2) && models.includes('sawt-hts');
  const body = Buffer.from(JSON.stringify({ voice_id: pick(hts ? HTS_VOICES : VOICES), text: pick(SENTENCES), stability: Math.random(), speed: 0.7 + Math.random() * 0.5, streaming }));
  const model = hts ? 'sawt-hts' : 'sawt-mini';
  return httpRequest({ port, path: `/api/v1/text-to-speech/${model}`, headers: jsonHeaders(acc.key), body, ...misbehaviour(false) });
}

function ws(acc) {
  const r = Math.random();
  return wsSession({
    port, key: acc.key, voiceId: pick(VOICES), modelId: 'sawt-mini', text: pick(SENTENCES),
    ...(r < 0.2 ? { abortAfterMs: Math.floor(Math.random() * 2000) } : r < 0.35 ? { pauseMs: 1000 + Math.floor(Math.random() * 2000) } : {}),
  });
}

function preview(acc) {
  const { contentType, body } = multipartBody({ text: pick(SENTENCES), similarity: String(Math.random()), model_id: 'sawt-mini', speed: '1' }, { file: reference });
  return httpRequest({ port, path: '/api/v1/voices/preview', headers: { 'x-api-key': acc.key, 'content-type': contentType }, body, ...misbehaviour(true) });
}

async function clone(acc) {
  // The preview's own output is what a client uploads as voice_file.
  const p = multipartBody({ text: SENTENCES[0], similarity: '0.8', model_id: 'sawt-mini' }, { file: reference });
  const pcm = await fetch(`http://127.0.0.1:${port}/api/v1/voices/preview`, { method: 'POST', headers: { 'x-api-key': acc.key, 'content-type': p.contentType }, body: p.body });
  if (pcm.status !== 200) return { status: pcm.status, bytes: 0, outcome: classify(pcm.status), detail: `preview before clone: ${(await pcm.text()).slice(0, 200)}` };
  const voiceFile = Buffer.from(await pcm.arrayBuffer());
  const { contentType, body } = multipartBody({ name: 'soak voice', text: SENTENCES[0], stability: '0.5', model: 'sawt-mini', gender: pick(['male', 'female', '']) }, { voice_file: voiceFile, reference_audio_file: reference });
  const r = await httpRequest({ port, path: '/api/v1/voices/clone', headers: { 'x-api-key': acc.key, 'content-type': contentType }, body, ...(chance(0.3) ? { abort: { atUploadFraction: Math.random() } } : {}) });
  if (r.outcome === 'ok') {
    const voiceId = JSON.parse(r.json).voice_id;
    record('tts-cloned-voice', await httpRequest({ port, path: '/api/v1/text-to-speech/sawt-mini', headers: jsonHeaders(acc.key), body: Buffer.from(JSON.stringify({ voice_id: voiceId, text: SENTENCES[1], stability: 0.5, streaming: true })) }));
    // DELETE comes with the hardening's cloned-voice item; before it lands a 404 only means "not there yet".
    const del = await httpRequest({ port, method: 'DELETE', path: `/api/v1/voices/${encodeURIComponent(voiceId)}`, headers: { 'x-api-key': acc.key } });
    record('clone-delete', del);
  }
  return r;
}

function denoise(acc) {
  const { contentType, body } = multipartBody({}, { audio: noisy });
  return httpRequest({ port, path: '/api/v1/denoise', headers: { 'x-api-key': acc.key, 'content-type': contentType }, body, ...misbehaviour(true) });
}

const KINDS = [
  ['tts-stream', 30, (a) => tts(a, true)],
  ['tts-wav', 15, (a) => tts(a, false)],
  ['websocket', 20, ws],
  ['preview', 12, preview],
  ['denoise', 12, denoise],
  ['clone', 6, clone],
  ['over-limit', 5, async (a) => (await Promise.all(Array.from({ length: a.limit + 1 }, () => tts(a, true)))).find((r) => r.outcome !== 'ok') ?? { status: 200, outcome: 'ok' }],
];
const totalWeight = KINDS.reduce((s, k) => s + k[1], 0);
function pickKind() {
  let x = Math.random() * totalWeight;
  for (const k of KINDS) if ((x -= k[1]) < 0) return k;
  return KINDS[0];
}

const startedAt = Date.now();
const endAt = startedAt + minutes * 60_000;
let requests = 0;
async function clientLoop(acc) {
  while (Date.now() < endAt) {
    const [kind, , run] = pickKind();
    let r;
    try {
      r = await run(acc);
    } catch (e) {
      r = { status: null, outcome: 'disconnected', detail: `client error: ${e.message}` };
    }
    requests++;
    record(kind, r);
    await sleep(Math.floor(Math.random() * 200));
  }
}

const rss = [];
const sample = () => {
  const mb = server ? rssMB(server.pid) : null;
  const t = round((Date.now() - startedAt) / 1000, 0);
  rss.push({ t, mb });
  const bad = Object.values(stats).reduce((s, o) => s + (o['server-error'] ?? 0), 0);
  console.error(`soak: t=${t}s rss=${mb} MB requests=${requests} 5xx=${bad} crashes=${crashes.length}`);
};
sample();
const sampler = setInterval(sample, sampleSeconds * 1000);
await Promise.all(accounts.flatMap((acc) => Array.from({ length: acc.limit }, () => clientLoop(acc))));
clearInterval(sampler);
sample();
const loadSeconds = round((Date.now() - startedAt) / 1000, 0);

// ---------- after the load: money, temp files, shutdown ----------

await sleep(2000); // releases after the last client aborts are asynchronous
const ledgerChecks = [];
for (const acc of accounts) {
  const wallet = await cli('wallet', 'show', '--account', acc.id);
  const ledger = await cli('wallet', 'ledger', '--account', acc.id, '--limit', '100000');
  const micro = (x) => Math.round(x * 1e6);
  const sum = (kind) => ledger.filter((e) => e.kind === kind).reduce((s, e) => s + micro(e.amount), 0);
  const closed = new Set(ledger.filter((e) => e.kind === 'settle' || e.kind === 'release').map((e) => e.reservation_id));
  const open = ledger.filter((e) => e.kind === 'reserve' && !closed.has(e.reservation_id)).length;
  const check = {
    plan: acc.plan, account: acc.id, movements: ledger.length,
    balance: wallet.balance, topups: sum('topup') / 1e6, settled: sum('settle') / 1e6, reserved: wallet.reserved, openReservations: open,
    reservedByLedger: (sum('reserve') - sum('settle') - sum('release')) / 1e6,
  };
  check.holds = micro(wallet.balance) === sum('topup') - sum('settle') && wallet.reserved === 0 && open === 0 && check.reservedByLedger === 0;
  ledgerChecks.push(check);
}
const leftoverDuring = [...filesUnder(path.join(dataDir, 'tmp')), ...filesUnder(osTmp)];
stopping = true;
server.child.kill('SIGTERM');
const shutdown = await Promise.race([server.exited, sleep(60_000).then(() => ({ code: null, signal: 'timeout' }))]);
if (shutdown.signal === 'timeout') server.child.kill('SIGKILL');
const leftoverAfter = [...filesUnder(path.join(dataDir, 'tmp')), ...filesUnder(osTmp)];

// Warm-up: models load on first use (HTS voice, denoiser), which took ~90 s on a busy 2-core machine.
const warmup = Math.min(120, (minutes * 60) / 2);
const afterWarmup = rss.filter((p) => p.mb !== null && p.t >= warmup);
const count5xx = Object.values(stats).reduce((s, o) => s + (o['server-error'] ?? 0), 0);
const results = {
  date: new Date().toISOString(),
  machine: machine(),
  note: 'taken on a shared, busy machine unless stated otherwise',
  minutes, loadSeconds, plans, models, concurrentClients: accounts.reduce((s, a) => s + a.limit, 0),
  requests,
  byKind: stats,
  statuses,
  fiveXX: { count: count5xx, samples: fiveXX },
  unexpectedDisconnects: { count: Object.values(stats).reduce((s, o) => s + (o.disconnected ?? 0) + (o.timeout ?? 0), 0), samples: disconnects },
  crashes: { count: crashes.length, details: crashes },
  rss: { sampleSeconds, samples: rss, warmupSeconds: warmup, slopeMBPerMinuteAfterWarmup: slopePerMinute(afterWarmup), startMB: rss[0]?.mb, endMB: rss.at(-1)?.mb, peakMB: Math.max(...rss.map((p) => p.mb ?? 0)) },
  ledger: { holds: ledgerChecks.every((c) => c.holds), accounts: ledgerChecks },
  tempFiles: { afterLoad: leftoverDuring, afterShutdown: leftoverAfter, onnxRuntimeFilesInTmpdir: existsSync(osTmp) ? readdirSync(osTmp).filter((n) => ORT_FILES.test(n)).length : 0 },
  shutdown,
};
results.targets = {
  no5xx: count5xx === 0,
  noCrash: crashes.length === 0,
  ledgerInvariant: results.ledger.holds,
  tempFolderEmpty: leftoverDuring.length === 0 && leftoverAfter.length === 0,
  cleanShutdown: shutdown.code === 0,
};
writeResults('soak', results);
if (Object.values(results.targets).every(Boolean)) rmSync(root, { recursive: true, force: true });
else console.error(`soak: a target was missed; the data dir and temp dirs are kept in ${root}\nlast server output:\n${logTail.slice(-3000)}`);
process.exit(Object.values(results.targets).every(Boolean) ? 0 : 1);
