// npm run bench:scale: sawt-mini with 8 concurrent streams (audio seconds per second,
// first byte p50/p95) for
//   - one process (SQLite),
//   - sawt serve --workers 2 (SQLite, limits through the primary),
//   - two cluster nodes (config/cluster.json on PostgreSQL + Redis), behind nginx
//     with config/nginx.conf.example when nginx is installed, else alternating nodes;
// and, on the cluster, the Redis commands and PostgreSQL transactions per request
// with the round-trip time of each (their added latency ≈ count × round trip).
// Services: SAWT_BENCH_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres),
// SAWT_BENCH_REDIS_URL (default redis://127.0.0.1:6379). BENCH_SCALE_PER_STREAM
// requests per stream (default 3). Results: bench/results/scale-<date>.json.
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import knexFactory from 'knex';
import { Redis } from 'ioredis';
import { TEXT, concurrentFigures, concurrentStreams, here, machine, round, streamTts, summary, writeResults } from './harness.js';

const STREAMS = 8;
const PER_STREAM = Number(process.env.BENCH_SCALE_PER_STREAM ?? 3);
const PG_URL = process.env.SAWT_BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env.SAWT_BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const repo = path.resolve(here, '..');
const bin = path.join(repo, 'packages/cli/bin/sawt.js');
const run = promisify(execFile);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const children = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

async function freePort() {
  const s = createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

const cli = async (env, ...args) => JSON.parse((await run(process.execPath, [bin, ...args, '--json'], { env: { ...process.env, ...env }, cwd: repo })).stdout);

/** `sawt serve` with `env`; resolves when /healthz answers and `listeners` workers logged "listening". */
async function serve(env, listeners = 1) {
  const port = await freePort();
  // As users run it: the bin as a program (its first line starts Node with node-flags.sh's options).
  const child = spawn(bin, ['serve'], { env: { ...process.env, ...env, SAWT_PORT: String(port), SAWT_HOST: '127.0.0.1' }, cwd: repo, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  for (let i = 0; (log.match(/Sawt HTTP API listening/g) ?? []).length < listeners; i++) {
    if (child.exitCode !== null || i > 1800) throw new Error(`sawt serve did not start:\n${log.slice(-3000)}`);
    await sleep(100);
  }
  return { port, child, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) };
}

async function account(env) {
  const a = await cli(env, 'accounts', 'create', '--name', 'bench', '--plan', 'enterprise', '--balance', '100000');
  return (await cli(env, 'keys', 'create', '--account', a.id)).key;
}

/** 8 concurrent streams of PER_STREAM requests each, spread round-robin over `ports`, after a warm-up. */
async function measure(ports, key) {
  let n = 0;
  const next = () => ports[n++ % ports.length];
  await Promise.all(Array.from({ length: STREAMS }, () => streamTts({ port: next(), key, text: TEXT })));
  return concurrentFigures(STREAMS, await concurrentStreams(STREAMS, PER_STREAM, () => streamTts({ port: next(), key, text: TEXT })));
}

async function sqliteRun(workers) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sawt-bench-scale-'));
  const env = { SAWT_DATA_DIR: dataDir, SAWT_WORKERS: String(workers) };
  try {
    await cli(env, 'migrate');
    const srv = await serve(env, workers);
    const key = await account(env);
    const figures = await measure([srv.port], key);
    await srv.stop();
    return figures;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function nginxFront(ports) {
  const found = await run('sh', ['-c', 'command -v nginx || ls /usr/sbin/nginx']).then((r) => r.stdout.trim().split('\n')[0], () => null);
  if (!found) return null;
  const dir = mkdtempSync(path.join(tmpdir(), 'sawt-bench-nginx-'));
  const port = await freePort();
  const conf = readFileSync(path.join(repo, 'config/nginx.conf.example'), 'utf8')
    .replace(/\n\s*server 10\.0\.0\.11:8080[^\n]*\n\s*server 10\.0\.0\.12:8080[^\n]*/, ports.map((p) => `\n    server 127.0.0.1:${p};`).join(''))
    .replace('listen 80;', `listen 127.0.0.1:${port};`)
    .replace('/var/log/nginx/sawt.log', path.join(dir, 'access.log'));
  writeFileSync(path.join(dir, 'nginx.conf'), `master_process off;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n${conf}\n}\n`);
  const child = spawn(found, ['-p', dir, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'ignore' });
  children.push(child);
  for (let i = 0; i < 100 && !(await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false)); i++) await sleep(100);
  return { port, stop: () => { child.kill('SIGKILL'); rmSync(dir, { recursive: true, force: true }); } };
}

/** Median round trip of `fn` over `n` calls, ms. */
async function roundTrip(fn, n = 50) {
  const times = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return summary(times, 3);
}

async function clusterRun() {
  const name = `sawt_bench_${randomBytes(4).toString('hex')}`;
  const admin = knexFactory({ client: 'pg', connection: PG_URL, pool: { min: 0, max: 1 } });
  await admin.raw(`CREATE DATABASE ${name}`);
  const url = new URL(PG_URL);
  url.pathname = `/${name}`;
  const prefix = `sawt-bench-${name}:`;
  const redis = new Redis(REDIS_URL);
  const dirs = [mkdtempSync(path.join(tmpdir(), 'sawt-bench-n1-')), mkdtempSync(path.join(tmpdir(), 'sawt-bench-n2-'))];
  const env = { SAWT_CONFIG: path.join(repo, 'config/cluster.json'), SAWT_DATABASE_URL: url.href, SAWT_REDIS_URL: REDIS_URL, SAWT_REDIS_PREFIX: prefix, SAWT_WORKERS: '1', SAWT_DATA_DIR: dirs[0] };
  const db = knexFactory({ client: 'pg', connection: url.href, pool: { min: 0, max: 1 } });
  try {
    await cli(env, 'migrate');
    const nodes = await Promise.all(dirs.map((d, i) => serve({ ...env, SAWT_DATA_DIR: d, SAWT_NODE_ID: `bench-${i + 1}` })));
    const key = await account(env);
    const proxy = await nginxFront(nodes.map((n) => n.port));
    const ports = proxy ? [proxy.port] : nodes.map((n) => n.port);
    const figures = await measure(ports, key);

    // Round trips per request: one request at a time, counters read before and after.
    const commands = async () => Number(/total_commands_processed:(\d+)/.exec(await redis.info('stats'))[1]);
    const xacts = async () => Number((await db.raw('select xact_commit + xact_rollback as n from pg_stat_database where datname = ?', [name])).rows[0].n);
    await sleep(1500); // let pg_stat settle (it is updated with a delay)
    const REQS = 10;
    const [c0, x0] = [await commands(), await xacts()];
    for (let i = 0; i < REQS; i++) await streamTts({ port: nodes[0].port, key, text: TEXT });
    await sleep(1500);
    const [c1, x1] = [await commands(), await xacts()];
    const redisRtt = await roundTrip(() => redis.ping());
    const pgRtt = await roundTrip(() => db.raw('select 1'));
    for (const n of nodes) await n.stop();
    proxy?.stop();
    return {
      via: proxy ? 'nginx (config/nginx.conf.example)' : 'alternating the two nodes (nginx not installed)',
      ...figures,
      perRequest: {
        note: 'counted over sequential requests; includes the nodes\' background heartbeats and sweeps during the interval (and the counters\' own queries: 2 Redis INFO, 1-2 PostgreSQL selects)',
        redisCommands: round((c1 - c0) / REQS, 1),
        postgresTransactions: round((x1 - x0) / REQS, 1),
        redisRoundTripMs: redisRtt,
        postgresRoundTripMs: pgRtt,
        addedLatencyMsEstimate: round(((c1 - c0) / REQS) * redisRtt.p50 + ((x1 - x0) / REQS) * pgRtt.p50, 2),
      },
    };
  } finally {
    await db.destroy();
    await admin.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.destroy();
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
    dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  }
}

const results = { date: new Date().toISOString(), machine: machine(), streams: STREAMS, perStream: PER_STREAM, textChars: [...TEXT].length };
results.oneProcess = await sqliteRun(1);
results.workers2 = await sqliteRun(2);
results.twoClusterNodes = await clusterRun().catch((e) => ({ skipped: `cluster not measured: ${e.message}` }));
writeResults('scale', results);
process.exit(0);
