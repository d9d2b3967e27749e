// A real `sawt serve` in its own process (to kill -9, SIGTERM or restart), and the
// admin CLI run as an operator would, both on one data dir.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort, repoRoot, sawtBin } from './server.js';

export { freePort, sawtBin };
const run = promisify(execFile);

/** `sawt …` on `env`; resolves { code, stdout, stderr } (never rejects). */
export function sawtCli(env, ...args) {
  return run(process.execPath, [sawtBin, ...args], { env: { ...process.env, ...env }, cwd: repoRoot, maxBuffer: 64 << 20 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

/** `sawt … --json`, parsed; throws with stderr on failure. */
export async function sawtJson(env, ...args) {
  const r = await sawtCli(env, ...args, '--json');
  if (r.code !== 0) throw new Error(`sawt ${args.join(' ')} failed (${r.code}): ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/**
 * Spawns `sawt serve` with `env` (SAWT_DATA_DIR, SAWT_PORT… are the caller's) and
 * waits for /healthz. Killed at teardown if still running.
 */
export async function spawnServer(t, env, { timeoutMs = 60_000 } = {}) {
  const child = spawn(process.execPath, [sawtBin, 'serve'], { env: { ...process.env, SAWT_WORKERS: '1', ...env }, cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  t.teardown(() => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL'));
  const base = `http://${env.SAWT_HOST ?? '127.0.0.1'}:${env.SAWT_PORT}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`sawt serve exited early (${child.exitCode}):\n${output}`);
    if (await fetch(`${base}/healthz`).then((r) => r.status === 200, () => false)) break;
    if (Date.now() > deadline) throw new Error(`sawt serve did not become healthy in ${timeoutMs} ms:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, pid: child.pid, base, api: `${base}/api/v1`, exited, output: () => output, kill: (signal) => child.kill(signal) };
}
