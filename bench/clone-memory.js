// Memory of `sawt serve` around parallel voice clones from long uploads (issue 28, item 3:
// "memory per job is bounded and returned"). Starts `sawt serve` on a fresh data dir,
// makes one warm-up clone (the base voices are analysed once and kept), then samples the
// resident memory (VmRSS) of the server's processes before, during and after N parallel
// clones whose reference and voice_file are each SECONDS long.
//
//   node bench/clone-memory.js [--workers 1] [--clones 8] [--seconds 590] [--settle 15]
//
// The uploads are made with ffmpeg from the speech clips of ../shared/testdata/arabic-speech-commands
// (looped), or from pink noise mixed with a tone when that folder is absent. Prints a table and
// writes bench/results/clone-memory-<date>-<workers>w.json. Goal: after - before ≤ 150 MB per worker.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const sawt = path.join(repo, 'packages/cli/bin/sawt.js');
const speechDir = path.resolve(repo, '../shared/testdata/arabic-speech-commands');
const { values: opt } = parseArgs({
  options: {
    workers: { type: 'string', default: '1' }, clones: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '590' }, settle: { type: 'string', default: '15' },
  },
});
const WORKERS = Number(opt.workers);
const CLONES = Number(opt.clones);
const SECONDS = Number(opt.seconds);
const SETTLE_S = Number(opt.settle);

const work = mkdtempSync(path.join(tmpdir(), 'sawt-clone-memory-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const env = { ...process.env, SAWT_DATA_DIR: path.join(work, 'data'), SAWT_WORKERS: String(WORKERS), SAWT_HOST: '127.0.0.1' };

const freePort = () => new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
});
const cli = (...args) => JSON.parse(execFileSync(process.execPath, [sawt, ...args, '--json'], { env, cwd: repo }).toString());

/** `seconds` of speech (the shared clips, looped) or of a tone in noise, as WAV PCM16 16 kHz mono. */
function makeUpload(file, seconds) {
  if (existsSync(speechDir)) {
    const clips = readdirSync(speechDir).filter((f) => f.endsWith('.wav')).sort();
    const list = path.join(work, 'clips.txt');
    writeFileSync(list, clips.map((f) => `file '${path.join(speechDir, f)}'`).join('\n'));
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-stream_loop', '-1', '-f', 'concat', '-safe', '0', '-i', list, '-t', String(seconds), '-ac', '1', '-ar', '16000', file]);
  } else {
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `sine=frequency=150:sample_rate=16000:duration=${seconds}`,
      '-f', 'lavfi', '-i', `anoisesrc=color=pink:amplitude=0.1:sample_rate=16000:duration=${seconds}`, '-filter_complex', 'amix=inputs=2', '-ac', '1', file]);
  }
  return readFileSync(file);
}

/** The server's processes: the primary and its node children (the workers), with their VmRSS in MB (ffmpeg children not counted). */
function rss(primary) {
  let ps = '';
  try {
    ps = execFileSync('ps', ['--ppid', String(primary), '-o', 'pid=,comm='], { encoding: 'utf8' });
  } catch { /* no children */ }
  const kids = ps.trim().split('\n').map((l) => l.trim().split(/\s+/)).filter(([, comm]) => comm === 'node').map(([pid]) => Number(pid));
  const read = (pid) => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : 0;
    } catch {
      return 0;
    }
  };
  // One worker may be served by the primary itself (no fork): it is then the worker.
  return kids.length ? { primary: read(primary), workers: kids.map(read) } : { primary: 0, workers: [read(primary)] };
}
const mb = (x) => Math.round(x);

async function clone(api, key, name, voiceFile, reference) {
  const fd = new FormData();
  for (const [k, v] of Object.entries({ name, text: 'مرحبا بكم في خدمة صوت للنطق العربي.', stability: '0.5', model: 'sawt-mini' })) fd.append(k, v);
  fd.append('voice_file', new Blob([voiceFile]), 'voice.wav');
  fd.append('reference_audio_file', new Blob([reference]), 'reference.wav');
  const t0 = performance.now();
  const r = await fetch(`${api}/voices/clone`, { method: 'POST', headers: { 'x-api-key': key }, body: fd });
  const body = await r.text();
  return { status: r.status, ms: Math.round(performance.now() - t0), error: r.status === 200 ? undefined : body.slice(0, 200) };
}

const port = await freePort();
const upload = makeUpload(path.join(work, 'long.wav'), SECONDS);
const warm = makeUpload(path.join(work, 'warm.wav'), 20);
console.log(`uploads: ${CLONES} × 2 × ${(upload.length / 1e6).toFixed(1)} MB (${SECONDS} s, ${existsSync(speechDir) ? 'speech' : 'tone + noise'}); sawt serve with ${WORKERS} worker(s)`);

cli('accounts', 'list'); // migrates the fresh data dir before the server starts
const server = spawn(process.execPath, [sawt, 'serve'], { env: { ...env, SAWT_PORT: String(port) }, cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
let log = '';
server.stdout.on('data', (d) => (log += d));
server.stderr.on('data', (d) => (log += d));
process.on('exit', () => server.exitCode === null && server.kill('SIGKILL'));
const base = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  if (server.exitCode !== null) throw new Error(`sawt serve exited:\n${log}`);
  if (await fetch(`${base}/healthz`).then((r) => r.status === 200, () => false)) break;
  if (i > 1200) throw new Error(`sawt serve did not come up:\n${log}`);
  await sleep(100);
}
const account = cli('accounts', 'create', '--name', 'clone-memory', '--plan', 'enterprise', '--balance', '1');
const { key } = cli('keys', 'create', '--account', account.id);
const api = `${base}/api/v1`;

// Warm-up: one clone per worker (base voices analysed and kept, code paths compiled).
for (let i = 0; i < WORKERS; i++) {
  const w = await clone(api, key, `warm${i}`, warm, warm);
  if (w.status !== 200) throw new Error(`warm-up clone failed: ${w.status} ${w.error}`);
}
await sleep(3000);
const before = rss(server.pid);

const during = [];
let running = true;
const sampler = (async () => {
  while (running) {
    during.push(rss(server.pid));
    await sleep(200);
  }
})();
const t0 = performance.now();
const results = await Promise.all(Array.from({ length: CLONES }, (_, i) => clone(api, key, `long${i}`, upload, upload)));
const wallMs = Math.round(performance.now() - t0);
running = false;
await sampler;
const afterAt = [];
for (let s = 0; s <= SETTLE_S; s += 5) {
  afterAt.push({ s, ...rss(server.pid) });
  if (s < SETTLE_S) await sleep(5000);
}
const after = afterAt.at(-1);
server.kill('SIGTERM');

const workerCount = before.workers.length;
const peak = Array.from({ length: workerCount }, (_, i) => Math.max(...during.map((d) => d.workers[i] ?? 0)));
const row = (label, w) => `${label.padEnd(22)} ${w.map((x) => `${mb(x)}`.padStart(7)).join(' ')}`;
console.log(`clones: ${results.map((r) => r.status).join(' ')} in ${(wallMs / 1000).toFixed(1)} s (each ${results.map((r) => (r.ms / 1000).toFixed(1)).join(', ')} s)`);
for (const r of results.filter((x) => x.status !== 200)) console.log(`  failed: ${r.status} ${r.error}`);
console.log(`${'VmRSS MB'.padEnd(22)} ${before.workers.map((_, i) => `worker${i + 1}`.padStart(7)).join(' ')}   primary`);
console.log(`${row('before', before.workers)}   ${mb(before.primary)}`);
console.log(`${row('during (peak)', peak)}   ${mb(Math.max(...during.map((d) => d.primary)))}`);
for (const a of afterAt) console.log(`${row(`after +${a.s} s`, a.workers)}   ${mb(a.primary)}`);
const growth = after.workers.map((x, i) => x - before.workers[i]);
const ok = growth.every((g) => g <= 150);
console.log(`after - before: ${growth.map((g) => `${mb(g)} MB`).join(', ')} (goal ≤ 150 MB): ${ok ? 'met' : 'NOT met'}`);

mkdirSync(path.join(here, 'results'), { recursive: true });
const out = path.join(here, 'results', `clone-memory-${new Date().toISOString().slice(0, 10)}-${WORKERS}w.json`);
writeFileSync(out, JSON.stringify({
  date: new Date().toISOString(), workers: WORKERS, clones: CLONES, seconds: SECONDS, uploadBytes: upload.length, statuses: results.map((r) => r.status), wallMs,
  rssMb: { before, peak, afterAt, growth }, goalMet: ok,
}, null, 2));
console.log(`written ${path.relative(repo, out)}`);
process.exit(ok ? 0 : 1);
