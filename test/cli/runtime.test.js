// A supported runtime: Node.js 24 LTS or 22 (20 reached end of life on 2026-04-30). The tests run on
// it (scripts/test.sh puts the project's Node first), and `sawt` run as a program starts it even
// from a shell whose PATH finds an older node first: scripts/setup.sh installs Node 24 into .node/
// when the machine's is older than 22, and the bin's first line prefers it.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { pollUntil, repoRoot, sawtBin, tempDir } from '../helpers/server.js';

const projectNode = path.join(repoRoot, '.node/bin/node');
const major = Number(process.versions.node.split('.')[0]);

t.test('the tests run on a supported Node.js (22 or newer)', async (t) => {
  t.ok(major >= 22, `Node.js ${process.version} (run the tests through npm test, which uses .node/bin when setup installed it)`);
  const engines = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).engines.node;
  t.match(engines, /^>=22/, 'package.json engines say so too');
});

t.test('`sawt` run as a program starts the project\'s Node, whatever the caller\'s PATH', { skip: !existsSync(projectNode) && 'no .node/: this machine\'s Node is 22 or newer' }, async (t) => {
  // A PATH on which `node` is the system's (older) one, as in a user's shell.
  const env = { ...process.env, PATH: '/usr/local/bin:/usr/bin:/bin', SAWT_DATA_DIR: tempDir(t), SAWT_PORT: '0', SAWT_WORKERS: '1', SAWT_LOG_FORMAT: 'json' };
  const child = spawn(sawtBin, ['serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  t.teardown(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  await pollUntil('sawt serve to listen', () => /Sawt HTTP API listening/.test(out) || child.exitCode !== null, 60_000, 100);
  // The bin's shell line execs Node in the same process: its executable is the Node that runs sawt.
  t.equal(readlinkSync(`/proc/${child.pid}/exe`), projectNode, 'the process is .node/bin/node');
  child.kill('SIGTERM');
});
