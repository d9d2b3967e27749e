// The bundled models (models/ in the repository): byte for byte what the manifest
// records, under 15 MB, licenses beside the data, the catalog's sha256 in agreement;
// lookup order SAWT_MODELS_DIR first, then the bundle; pulled files stay out of git.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { BUNDLED_MODELS_DIR, ModelFiles, bundledManifest, tokens } from '@sawt/core';
import { repoRoot, startServer, tempDir } from '../helpers/server.js';

const bundle = path.join(repoRoot, 'models');
const manifest = JSON.parse(readFileSync(path.join(bundle, 'manifest.json'), 'utf8')).files;
const sha = (b) => createHash('sha256').update(b).digest('hex');

t.test('every bundled file matches models/manifest.json, and the manifest lists every file there', async (t) => {
  t.equal(BUNDLED_MODELS_DIR, bundle, 'the code finds the bundle of its own installation');
  const onDisk = readdirSync(bundle, { recursive: true }).map(String)
    .filter((f) => statSync(path.join(bundle, f)).isFile() && !['README.md', 'manifest.json', '.gitignore'].includes(f) && !f.startsWith('.partial'));
  // Files a pull or an operator placed in ./models are not part of the bundle.
  const tracked = existsSync(path.join(repoRoot, '.git'))
    ? execFileSync('git', ['ls-files', 'models'], { cwd: repoRoot, encoding: 'utf8' }).split('\n').filter(Boolean).map((f) => f.slice('models/'.length)).filter((f) => !['README.md', 'manifest.json', '.gitignore'].includes(f))
    : onDisk;
  t.same([...tracked].sort(), Object.keys(manifest).sort(), 'tracked files = manifest');
  let total = 0;
  for (const [file, { sha256, bytes }] of Object.entries(manifest)) {
    const data = readFileSync(path.join(bundle, file));
    t.equal(sha(data), sha256, `${file} sha256`);
    t.equal(data.length, bytes, `${file} size`);
    total += data.length;
  }
  t.ok(total < 15 * 1024 * 1024, `${(total / 1048576).toFixed(1)} MB in all, under 15 MB`);
  for (const dir of new Set(Object.keys(manifest).map((f) => path.dirname(f)))) t.ok(manifest[`${dir}/LICENSE`], `${dir}/ has its LICENSE`);
  t.same(bundledManifest().map((m) => m.file).sort(), Object.keys(manifest).sort());
  const readme = readFileSync(path.join(bundle, 'README.md'), 'utf8');
  for (const [file, { sha256 }] of Object.entries(manifest)) t.match(readme, sha256, `models/README.md gives the sha256 of ${file}`);
});

const shared = path.resolve(repoRoot, '../shared/models');
t.test('byte-identical to ../shared/models', { skip: !existsSync(shared) && `${shared} is absent` }, async (t) => {
  for (const file of Object.keys(manifest).filter((f) => existsSync(path.join(shared, f)))) {
    t.ok(readFileSync(path.join(bundle, file)).equals(readFileSync(path.join(shared, file))), file);
  }
});

t.test("the catalog's downloads agree with the manifest for every bundled file", async (t) => {
  const srv = await startServer(t);
  const parts = srv.app.get(tokens.models).parts();
  const downloads = parts.flatMap((p) => p.downloads);
  t.ok(downloads.some((d) => d.file === 'hts/ara_norm_ziad/ara_norm_ziad_hts.htsvoice'), 'sawt-hts has a public home');
  t.ok(downloads.some((d) => d.file === 'tashkeel/libtashkeel-2024-01-04.onnx'), 'the diacritizer has a public home');
  for (const d of downloads.filter((x) => manifest[x.file])) t.equal(d.sha256, manifest[d.file].sha256, d.file);
  for (const p of parts) for (const f of p.files) t.ok(manifest[f] || p.downloads.some((d) => d.file === f), `${p.name}: ${f} is bundled or downloadable`);
});

t.test('lookup: SAWT_MODELS_DIR first, then the bundle; one place when they are the same folder', async (t) => {
  const dir = tempDir(t);
  const files = new ModelFiles(dir);
  const voice = 'hts/ara_norm_ziad/ara_norm_ziad_hts.htsvoice';
  t.equal(files.find(voice), path.join(bundle, voice), 'from the bundle');
  t.same(files.copies(voice).map((c) => c.source), ['bundled']);
  mkdirSync(path.join(dir, 'hts/ara_norm_ziad'), { recursive: true });
  writeFileSync(path.join(dir, voice), 'operator voice');
  t.equal(files.find(voice), path.join(dir, voice), "the operator's file wins");
  t.same(files.copies(voice).map((c) => c.source), ['models-dir', 'bundled']);
  t.equal(files.searched('x/y.onnx'), `${path.join(dir, 'x/y.onnx')} or ${path.join(bundle, 'x/y.onnx')}`);
  t.same(files.missing([voice, 'x/y.onnx']), ['x/y.onnx']);
  t.same(new ModelFiles(dir, null).missing(['tashkeel/input_id_map.json']), ['tashkeel/input_id_map.json'], 'no bundle: only SAWT_MODELS_DIR');
  const same = new ModelFiles(bundle);
  t.ok(same.modelsDirIsBundled, './models from the repository root is the bundle');
  t.same(same.copies(voice), [{ path: path.join(bundle, voice), source: 'bundled' }], 'found once');
});

t.test('files pulled into the bundled folder stay out of git; the bundled ones are tracked', { skip: !existsSync(path.join(repoRoot, '.git')) && 'not a git checkout' }, async (t) => {
  const ignored = (f) => {
    try {
      execFileSync('git', ['check-ignore', '-q', '--no-index', f], { cwd: repoRoot });
      return true;
    } catch {
      return false;
    }
  };
  for (const f of ['models/piper/ar_JO-kareem-medium.onnx', 'models/.partial/0123.part', 'models/.partial/0123.part.lock', 'models/denoise/gtcrn/gtcrn_simple.onnx', 'models/hts/other/voice.htsvoice', 'models/tashkeel/other.onnx', 'models/denoise/dfn3/enc_gru_streaming.onnx']) {
    t.ok(ignored(f), `${f} ignored`);
  }
  for (const f of Object.keys(manifest)) t.notOk(ignored(`models/${f}`), `models/${f} not ignored`);
});
