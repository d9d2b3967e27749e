// Boots a real Sawt server (every configured plugin) on a free loopback port
// with its own temporary data dir, and offers helpers to create accounts and keys.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSawt, tokens, toMicro } from '@sawt/core';
import { createOpenApiChecker, recordResponses } from './openapi-check.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const defaultConfigPath = path.join(repoRoot, 'config/default.json');

export function tempDir(t, prefix = 'sawt-test-') {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export const silentLogger = (() => {
  const noop = () => {};
  const l = { info: noop, debug: noop, warn: noop, error: noop, child: () => l };
  return l;
})();

/**
 * What a server without the bundled models is started with (to test what happens
 * when a model is missing): no bundle, and the denoiser that needs no model file.
 */
export function withoutBundledModels() {
  const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  config.plugins.find((p) => p.resolve === '@sawt/plugin-denoise').options.backend = 'rnnoise';
  return { config, runtime: { bundledModelsDir: null } };
}

/**
 * Starts a server; `config` replaces the default config object when given. Every
 * response it sends is checked against its OpenAPI document (a failed assertion
 * in `t` per mismatch) unless `openapiCheck` is false.
 */
export async function startServer(t, { config, runtime = {}, logger = silentLogger, openapiCheck = true, clock } = {}) {
  const dataDir = runtime.dataDir ?? tempDir(t);
  const app = await createSawt({
    runtime: { host: '127.0.0.1', port: 0, dataDir, modelsDir: path.join(dataDir, 'models'), configPath: defaultConfigPath, configDir: path.dirname(defaultConfigPath), ...runtime },
    ...(config ? { config } : {}),
    logger,
    clock,
  });
  let check = null;
  const pending = [];
  const report = (problems) => {
    for (const p of problems) {
      if (!t.ended && !t.results) t.fail(`response does not match the OpenAPI document: ${p}`);
      else {
        console.error(`response does not match the OpenAPI document (after the test ended): ${p}`);
        process.exitCode = 1;
      }
    }
  };
  if (openapiCheck) recordResponses(app.get(tokens.httpServer).server, (r) => (check ? report(check(r)) : pending.push(r)));
  await app.start();
  t.teardown(() => app.stop());
  const { port } = app.get(tokens.httpServer).server.address();
  const base = `http://127.0.0.1:${port}`;
  if (openapiCheck) {
    check = createOpenApiChecker(await (await fetch(`${base}/api/v1/openapi.json`)).json());
    for (const r of pending.splice(0)) report(check(r));
  }

  async function createAccount({ plan = 'enterprise', balance = '100', name = 'test account' } = {}) {
    const account = await app.get(tokens.accounts).create({ name, plan });
    await app.get(tokens.wallet).topUp(account.id, toMicro(balance));
    return account;
  }
  async function createKey(accountId, opts = {}) {
    return app.get(tokens.apiKeys).create({ accountId, ...opts });
  }
  /** An account with a key: returns { account, key, headers }. */
  async function client(opts = {}) {
    const account = await createAccount(opts);
    const k = await createKey(account.id, opts.key ?? {});
    return { account, key: k, headers: { 'x-api-key': k.key, 'content-type': 'application/json' } };
  }
  async function balance(accountId) {
    return app.get(tokens.wallet).balance(accountId);
  }
  return { app, base, api: `${base}/api/v1`, dataDir, createAccount, createKey, client, balance };
}

export const SENTENCE = 'مرحبا بكم في خدمة صوت للنطق العربي.';
export const LONG_TEXT =
  'السلام عليكم ورحمة الله وبركاته. يسعدنا أن نقدم لكم خدمة صوت، وهي خدمة مفتوحة المصدر لتحويل النص العربي إلى كلام واضح. ' +
  'يمكنكم تشغيلها على أجهزتكم الخاصة، واختيار اللهجة والصوت المناسبين لكل تطبيق.';

/** Reads a WAV buffer: format fields and the PCM16 samples. */
export function parseWav(buf) {
  const riff = buf.toString('ascii', 0, 4);
  const wave = buf.toString('ascii', 8, 12);
  let off = 12;
  let fmt = null;
  let data = null;
  while (off + 8 <= buf.length) {
    const id = buf.toString('ascii', off, off + 4);
    const size = buf.readUInt32LE(off + 4);
    if (id === 'fmt ') fmt = { format: buf.readUInt16LE(off + 8), channels: buf.readUInt16LE(off + 10), sampleRate: buf.readUInt32LE(off + 12), bitsPerSample: buf.readUInt16LE(off + 22) };
    if (id === 'data') data = buf.subarray(off + 8, off + 8 + size);
    off += 8 + size + (size % 2);
  }
  return { riff, wave, fmt, data, riffSize: buf.readUInt32LE(4) };
}

export function pcmStats(pcm) {
  const n = Math.floor(pcm.length / 2);
  let sum = 0;
  let peak = 0;
  for (let i = 0; i < n; i++) {
    const v = pcm.readInt16LE(i * 2);
    sum += v * v;
    peak = Math.max(peak, Math.abs(v));
  }
  return { samples: n, rms: n ? Math.sqrt(sum / n) : 0, peak, seconds: n / 24000 };
}

/**
 * Runs fn() and tells what it cost the account: { out: fn's result, micro: the balance taken };
 * asserts nothing is left reserved (on `t`).
 */
export async function charged(t, srv, accountId, fn) {
  const before = await srv.balance(accountId);
  const out = await fn();
  const after = await srv.balance(accountId);
  t.equal(after.reserved, 0, 'nothing left reserved');
  return { out, micro: before.balance - after.balance };
}

/** The `sawt` command of this checkout. */
export const sawtBin = path.join(repoRoot, 'packages/cli/bin/sawt.js');

/** Runs `sawt ARGS` of this checkout in a child (stdin `input`, env added to this process's): { code, stdout, stderr }. */
export function runSawt(args, { input, env = {} } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [sawtBin, ...args], { env: { ...process.env, ...env }, cwd: repoRoot });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** Makes `object[method]` wait `ms` before each call until the test ends (a slow wallet, a slow admission). */
export function delayCalls(t, object, method, ms) {
  const original = object[method];
  object[method] = async (...args) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    return original.apply(object, args);
  };
  t.teardown(() => (object[method] = original));
}

/** Polls fn() every `every` ms until it returns something truthy (returned); throws naming `what` after `ms`. */
export async function pollUntil(what, fn, ms = 30_000, every = 25) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

/** A free loopback port. */
export async function freePort() {
  const s = createNetServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

/**
 * Runs `sawt serve` as a user does (its own process, `env` as given, in `cwd`) and
 * waits until /healthz answers 200 (up to 15 s). `output()` is what it logged so far.
 * asProgram: the bin is run as a program (as npx does, through its first line) rather than by node.
 */
export async function spawnServe(t, { env, cwd = repoRoot, asProgram = false }) {
  const port = await freePort();
  const child = spawn(asProgram ? sawtBin : process.execPath, asProgram ? ['serve'] : [sawtBin, 'serve'], { env: { SAWT_WORKERS: '1', ...env, SAWT_PORT: String(port), SAWT_HOST: '127.0.0.1' }, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  t.teardown(() => child.kill('SIGKILL'));
  const base = `http://127.0.0.1:${port}`;
  const healthy = () => fetch(`${base}/healthz`).then((r) => r.status === 200, () => false);
  for (let i = 0; i < 150 && !(await healthy()); i++) await new Promise((r) => setTimeout(r, 100));
  return { child, base, healthy: await healthy(), output: () => log };
}
