// A CLI that explains itself: --version, --help on every command (usage, options,
// an example), groups alone print their help, unknown commands and options are usage
// errors, `keys list` shows what limits each key, and paths default sensibly.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { INSTALL_DIR, loadConfig, runtimeFromEnv } from '@sawt/core';
import { buildProgram, main } from '@sawt/cli';
import { repoRoot, sawtBin, tempDir } from '../helpers/server.js';

const run = promisify(execFile);
function cli(env, cwd, ...args) {
  return run(process.execPath, [sawtBin, ...args], { env: { ...process.env, ...env }, cwd }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

/** main() in this process, its output captured. */
async function inProcess(...argv) {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

const version = JSON.parse(readFileSync(path.join(repoRoot, 'packages/cli/package.json'), 'utf8')).version;

t.test('sawt --version', async (t) => {
  const r = await cli({}, repoRoot, '--version');
  t.equal(r.code, 0);
  t.equal(r.stdout, `${version}\n`);
  t.equal(r.stderr, '', 'no npm or other warnings');
});

t.test('every command and group has --help with usage, options and an example', async (t) => {
  const { program } = buildProgram({ stdout: () => {}, stderr: () => {} });
  const paths = [];
  const walk = (cmd, prefix) => {
    for (const c of cmd.commands) {
      const p = [...prefix, c.name()];
      paths.push({ p, leaf: c.commands.length === 0 });
      walk(c, p);
    }
  };
  walk(program, []);
  t.ok(paths.length >= 20, `${paths.length} commands`);
  for (const { p, leaf } of paths) {
    const r = await inProcess(...p, '--help');
    t.equal(r.code, 0, `${p.join(' ')} --help exits 0`);
    t.match(r.stdout, new RegExp(`^Usage: sawt ${p.join(' ')} `), `${p.join(' ')}: usage`);
    t.match(r.stdout, /\nOptions:\n/, `${p.join(' ')}: options`);
    t.match(r.stdout, /\nExamples?:\n  \$ sawt /, `${p.join(' ')}: example`);
    if (leaf && !['serve', 'say'].includes(p[0])) t.match(r.stdout, /--json/, `${p.join(' ')}: --json documented`);
  }
  const create = await inProcess('keys', 'create', '--help');
  for (const o of ['--account <id>', '--endpoints <list>', '--expires-at <iso8601>', '--quota-chars <n>']) t.match(create.stdout, o);
});

t.test('a group alone prints its help; unknown commands and options are usage errors', async (t) => {
  for (const group of ['text', 'keys', 'accounts', 'wallet', 'models']) {
    const r = await inProcess(group);
    t.equal(r.code, 0, `sawt ${group}`);
    t.match(r.stdout, new RegExp(`^Usage: sawt ${group} \\[options\\] \\[command\\]`));
    t.match(r.stdout, /\nCommands:\n/);
  }
  const text = await inProcess('text');
  for (const stage of ['normalize', 'diacritize', 'phonemize']) t.match(text.stdout, stage);

  const bare = await inProcess();
  t.equal(bare.code, 1, 'sawt alone: help, exit 1');
  t.match(bare.stdout, /^Usage: sawt /);

  for (const [args, message] of [
    [['frobnicate'], "sawt: unknown command 'frobnicate'\n"],
    [['keys', 'frob'], "sawt: unknown command 'frob'\n"],
    [['keys', 'create', '--account', 'x', '--bogus'], "sawt: unknown option '--bogus'\n"],
    [['keys', 'create'], "sawt: required option '--account <id>' not specified\n"],
  ]) {
    const r = await inProcess(...args);
    t.equal(r.code, 2, args.join(' '));
    t.equal(r.stderr, message);
    t.equal(r.stdout, '');
  }
  const old = await cli({}, repoRoot, 'keys', 'create', '--help');
  t.equal(old.code, 0, 'the report of the issue: keys create --help works');
  t.match(old.stdout, /Usage: sawt keys create/);
});

t.test('keys list shows expiry, scopes, quota and state; unknown ids are errors', async (t) => {
  const dir = tempDir(t);
  const env = { SAWT_DATA_DIR: dir, SAWT_MODELS_DIR: path.join(dir, 'models') };
  const json = (r) => JSON.parse(r.stdout);
  const acc = json(await cli(env, repoRoot, 'accounts', 'create', '--name', 'K', '--plan', 'free', '--balance', '1', '--json'));
  const limited = json(await cli(env, repoRoot, 'keys', 'create', '--account', acc.id, '--endpoints', 'models,tts', '--expires-at', '2031-02-03T04:05:06Z', '--quota-chars', '5000', '--json'));
  const open = json(await cli(env, repoRoot, 'keys', 'create', '--account', acc.id, '--json'));
  await cli(env, repoRoot, 'keys', 'revoke', '--id', open.id);
  const list = await cli(env, repoRoot, 'keys', 'list', '--account', acc.id);
  t.equal(list.code, 0, list.stderr);
  const lines = list.stdout.trim().split('\n');
  t.equal(lines.length, 2);
  const l = lines.find((x) => x.startsWith(limited.id));
  t.match(l, /active/);
  t.match(l, /expires 2031-02-03T04:05:06\.000Z/);
  t.match(l, /scopes models,tts/);
  t.match(l, /0\/5000 chars/);
  const o = lines.find((x) => x.startsWith(open.id));
  t.match(o, /revoked 20/);
  t.match(o, /expires never/);
  t.match(o, /scopes all/);
  t.match(o, /no quota/);
  t.notOk(list.stdout.includes(limited.key), 'no secret');

  const unknown = await cli(env, repoRoot, 'keys', 'list', '--account', 'no-such-account');
  t.equal(unknown.code, 1);
  t.equal(unknown.stderr, "sawt: Account 'no-such-account' not found\n");
  t.equal(unknown.stdout, '');
  for (const args of [['keys', 'revoke', '--id', 'nope'], ['keys', 'delete', '--id', 'nope'], ['wallet', 'show', '--account', 'nope'], ['wallet', 'ledger', '--account', 'nope'], ['models', 'grant', '--account', 'nope', '--model', 'sawt-mini']]) {
    const r = await cli(env, repoRoot, ...args);
    t.equal(r.code, 1, args.join(' '));
    t.match(r.stderr, /^sawt: .*not found\n$/);
  }
});

t.test('paths: relative to the working directory when it has config/, else to the installation', async (t) => {
  const elsewhere = tempDir(t);
  const rt = runtimeFromEnv({}, elsewhere);
  t.equal(rt.configPath, path.join(INSTALL_DIR, 'config/default.json'));
  t.equal(rt.dataDir, path.join(INSTALL_DIR, 'data'));
  t.equal(rt.modelsDir, path.join(INSTALL_DIR, 'models'));

  const deployment = tempDir(t);
  mkdirSync(path.join(deployment, 'config'));
  writeFileSync(path.join(deployment, 'config/default.json'), '{"plugins":[]}');
  const own = runtimeFromEnv({}, deployment);
  t.equal(own.configPath, path.join(deployment, 'config/default.json'));
  t.equal(own.dataDir, path.join(deployment, 'data'));
  t.equal(own.modelsDir, path.join(deployment, 'models'));

  const env = runtimeFromEnv({ SAWT_DATA_DIR: 'd', SAWT_MODELS_DIR: '/m' }, elsewhere);
  t.equal(env.dataDir, path.join(elsewhere, 'd'), 'the environment wins');
  t.equal(env.modelsDir, '/m');

  const noInstall = tempDir(t);
  const missing = runtimeFromEnv({}, elsewhere, noInstall);
  t.throws(() => loadConfig(missing.configPath), {
    message: `No config file: looked for ${path.join(elsewhere, 'config/default.json')} and ${path.join(noInstall, 'config/default.json')}; set SAWT_CONFIG to the config file, or run from a directory with config/default.json`,
  });
});
