// @sawt/client as a user gets it: `npm pack` in packages/client gives a tarball with dist/,
// README and an MIT LICENSE and no server code, depending only on @sawt/protocol (MIT, packed
// beside it); installed into a fresh project (offline, or unpacked when npm cannot install
// offline) its README's examples run as written on this Node against a running server.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { repoRoot, startServer, tempDir } from '../helpers/server.js';
import { wsConfig } from '../helpers/ws.js';

const clientDir = path.join(repoRoot, 'packages/client');
const protocolDir = path.join(repoRoot, 'packages/protocol');
const work = tempDir(t, 'sawt-client-pack-');
const pack = (cwd) => JSON.parse(execFileSync('npm', ['pack', '--json', '--loglevel=silent', '--pack-destination', work], { cwd, encoding: 'utf8' }))[0];
const packed = [pack(clientDir)];
const protocol = pack(protocolDir);
const tarball = path.join(work, packed[0].filename);
const protocolTarball = path.join(work, protocol.filename);
const files = packed[0].files.map((f) => f.path);

// A fresh project with the tarball (and ws, which the README installs beside it).
const project = path.join(work, 'app');
mkdirSync(path.join(project, 'node_modules'), { recursive: true });
writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
const install = spawnSync('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', protocolTarball, tarball], { cwd: project, encoding: 'utf8' });
const installedBy = install.status === 0 ? 'npm install --offline' : 'unpacking the tarballs (npm could not install offline)';
if (install.status !== 0) {
  for (const [name, file] of [['client', tarball], ['protocol', protocolTarball]]) {
    const dest = path.join(project, `node_modules/@sawt/${name}`);
    mkdirSync(dest, { recursive: true });
    execFileSync('tar', ['-xzf', file, '-C', dest, '--strip-components=1']);
  }
}
if (!existsSync(path.join(project, 'node_modules/ws'))) symlinkSync(path.join(repoRoot, 'node_modules/ws'), path.join(project, 'node_modules/ws'));

const srv = await startServer(t, { config: wsConfig() });
const { key } = await srv.client({ plan: 'enterprise', balance: '100' });
const doc = await (await fetch(`${srv.api}/openapi.json`)).json();
const timestampsRoute = Boolean(doc.paths['/text-to-speech/{model_id}/with-timestamps']);

t.test('the tarballs hold dist and an MIT LICENSE, and no server code: the client depends only on @sawt/protocol', async (t) => {
  t.match(packed[0].filename, /^sawt-client-\d+\.\d+\.\d+\.tgz$/);
  for (const f of ['LICENSE', 'README.md', 'package.json', 'dist/index.js', 'dist/index.d.ts', 'dist/client.js']) t.ok(files.includes(f), `${f} packed`);
  t.notOk(files.some((f) => /tsbuildinfo|^scripts\//.test(f)), 'no build state or generator script');
  const pkg = JSON.parse(readFileSync(path.join(clientDir, 'package.json'), 'utf8'));
  const protocolPkg = JSON.parse(readFileSync(path.join(protocolDir, 'package.json'), 'utf8'));
  t.same(pkg.dependencies, { '@sawt/protocol': protocolPkg.version }, 'one dependency: the protocol, at its version');
  t.notOk(protocolPkg.dependencies, 'the protocol has none');
  for (const [dir, p, list] of [[clientDir, pkg, files], [protocolDir, protocolPkg, protocol.files.map((f) => f.path)]]) {
    t.equal(p.license, 'MIT', `${p.name} is MIT`);
    t.ok(list.includes('LICENSE') && list.includes('dist/index.js'), `${p.name}: LICENSE and dist packed`);
    const license = readFileSync(path.join(dir, 'LICENSE'), 'utf8');
    t.match(license, /^MIT License/);
    t.match(license, /Copyright \(c\) \d{4} Sawt contributors/);
    t.match(license, /THE SOFTWARE IS PROVIDED "AS IS"/);
    // Every import of the built code is relative or the protocol: nothing of the GPL server.
    for (const f of list.filter((q) => /^dist\/.*\.(js|d\.ts)$/.test(q))) {
      const code = readFileSync(path.join(dir, f), 'utf8').split('\n').filter((l) => !/^\s*(\*|\/\*|\/\/)/.test(l)).join('\n');
      const specs = [...code.matchAll(/\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(?\s*['"]([^'"]+)['"]/g)].map((m) => m[1] ?? m[2]);
      t.ok(specs.every((s) => s.startsWith('./') || s === '@sawt/protocol'), `${p.name}/${f} imports only its own files and the protocol (${[...new Set(specs)].join(', ') || 'none'})`);
    }
  }
});

t.test(`installed by ${installedBy}: the package's entry point loads and speaks`, async (t) => {
  t.ok(existsSync(path.join(project, 'node_modules/@sawt/client/LICENSE')), 'LICENSE installed');
  const mod = await import(path.join(project, 'node_modules/@sawt/client/dist/index.js'));
  const sawt = new mod.SawtClient({ baseUrl: srv.base, apiKey: key.key });
  t.equal(mod.formatSampleRate('opus_48000_64'), 48000, "the protocol's table, installed with the client, gives a format's rate");
  t.same([...mod.OUTPUT_FORMATS], doc.paths['/text-to-speech/{model_id}'].post.requestBody.content['application/json'].schema.properties.output_format.enum, 'OUTPUT_FORMATS are the served enum');
  const ulaw = await sawt.textToSpeech('sawt-mini', { voice_id: 'fusha-omar', text: 'مرحبا بكم في خدمة صوت للنطق العربي.', stability: 0.5, output_format: 'ulaw_8000' });
  t.ok(ulaw.length > 8000, `${ulaw.length} bytes of μ-law (${(ulaw.length / 8000).toFixed(2)} s)`);
});

const blocks = [...readFileSync(path.join(clientDir, 'README.md'), 'utf8').matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
t.ok(blocks.length >= 3, `${blocks.length} js examples in the README`);
blocks.forEach((code, i) => {
  const needsTimestamps = code.includes('WithTimestamps');
  t.test(`README example ${i + 1} runs as written on Node ${process.versions.node}`, { skip: needsTimestamps && !timestampsRoute ? 'route not yet present (POST /text-to-speech/{model_id}/with-timestamps)' : false }, async (t) => {
    const file = path.join(project, `example-${i + 1}.mjs`);
    writeFileSync(file, code);
    const before = new Set(readdirSync(project));
    // Asynchronously: the server answers from this process.
    const r = await new Promise((resolve) => execFile(process.execPath, [file], { cwd: project, encoding: 'utf8', env: { ...process.env, SAWT_URL: srv.base, SAWT_API_KEY: key.key }, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ status: err ? (err.code ?? 1) : 0, stdout, stderr })));
    t.equal(r.status, 0, `exit 0${r.status ? `: ${r.stderr}` : ''}`);
    t.ok(r.stdout.trim().length > 0, `printed: ${r.stdout.trim().split('\n')[0]}`);
    for (const f of readdirSync(project).filter((n) => !before.has(n))) {
      const bytes = readFileSync(path.join(project, f));
      if (f.endsWith('.mp3')) t.ok(bytes.length > 1000 && (bytes.subarray(0, 3).toString() === 'ID3' || (bytes[0] === 0xff && (bytes[1] & 0xe0) === 0xe0)), `${f} is an MP3 (${bytes.length} bytes)`);
      if (f.endsWith('.wav')) t.ok(bytes.subarray(0, 4).toString() === 'RIFF' && bytes.length > 16000, `${f} is a WAV (${bytes.length} bytes)`);
    }
  });
});
