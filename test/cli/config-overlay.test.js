// A config overlay: a small file that changes one option over config/default.json instead of a
// copy of its 600 lines. The loader merges it: plugins matched by `resolve` (or `id`), options
// merged deeply, models and voices by their ids. And config/single-user.json, the README's
// "one user, no billing" overlay: nothing is charged, nothing rate-limited, on a balance of 0.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { loadConfig } from '@sawt/core';
import { defaultConfigPath, repoRoot, sawtBin, spawnServe, tempDir } from '../helpers/server.js';
import { multipart } from '../denoise/helpers.js';

const run = promisify(execFile);
const defaults = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
const plugin = (cfg, resolve) => cfg.plugins.find((p) => p.resolve === resolve);

function overlay(t, content, name = 'overlay.json') {
  const dir = tempDir(t);
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(content));
  return file;
}

t.test('one option changed over the defaults; everything else as in config/default.json', async (t) => {
  const file = overlay(t, { extends: 'default', plugins: [{ resolve: '@sawt/plugin-billing', options: { rateLimit: { max: 10 } } }] });
  const cfg = loadConfig(file);
  t.same(cfg.plugins.map((p) => p.resolve), defaults.plugins.map((p) => p.resolve), 'the same plugins, in the same order');
  t.same(plugin(cfg, '@sawt/plugin-billing').options.rateLimit, { windowMs: 60000, max: 10 }, 'max changed, windowMs kept (a deep merge)');
  const rest = (c) => c.plugins.filter((p) => p.resolve !== '@sawt/plugin-billing');
  t.same(rest(cfg), rest(defaults), 'every other plugin untouched');
});

t.test('models merge by model_id; arrays of plain values are replaced; new plugins are added; enabled: false', async (t) => {
  const file = overlay(t, {
    extends: 'default',
    plugins: [
      { resolve: '@sawt/plugin-engine', options: { defaultModel: 'sawt-hts', models: [{ model_id: 'sawt-hts', cost_per_char: 0.00005 }] } },
      { resolve: '@sawt/plugin-transport-http', options: { cors: { origins: ['https://a.example'] } } },
      { resolve: '@sawt/plugin-denoise', enabled: false },
      { resolve: './my-plugin.js', options: { x: 1 } },
    ],
  });
  const cfg = loadConfig(file);
  const engine = plugin(cfg, '@sawt/plugin-engine').options;
  const before = plugin(defaults, '@sawt/plugin-engine').options;
  t.equal(engine.defaultModel, 'sawt-hts');
  t.same(engine.models.map((m) => m.model_id), before.models.map((m) => m.model_id), 'no model lost');
  const hts = engine.models.find((m) => m.model_id === 'sawt-hts');
  t.equal(hts.cost_per_char, 0.00005, 'its price changed');
  t.same({ ...hts, cost_per_char: 0 }, { ...before.models.find((m) => m.model_id === 'sawt-hts'), cost_per_char: 0 }, 'the rest of the model kept');
  t.same(plugin(cfg, '@sawt/plugin-transport-http').options.cors.origins, ['https://a.example']);
  t.equal(plugin(cfg, '@sawt/plugin-denoise').enabled, false);
  t.same(cfg.plugins.at(-1), { resolve: path.join(path.dirname(file), 'my-plugin.js'), options: { x: 1 } }, 'a plugin the defaults lack is added at the end (its path made absolute)');
});

t.test('extends a path (overlays chain); mistakes are named', async (t) => {
  const dir = tempDir(t);
  writeFileSync(path.join(dir, 'base.json'), JSON.stringify({ plugins: [{ resolve: './local.js', options: { a: { b: 1, c: 2 } } }] }));
  writeFileSync(path.join(dir, 'mid.json'), JSON.stringify({ extends: './base.json', plugins: [{ resolve: './local.js', options: { a: { c: 3 } } }] }));
  writeFileSync(path.join(dir, 'top.json'), JSON.stringify({ extends: 'mid.json', plugins: [{ resolve: './local.js', options: { a: { d: 4 } } }] }));
  const cfg = loadConfig(path.join(dir, 'top.json'));
  t.same(cfg.plugins, [{ resolve: path.join(dir, 'local.js'), options: { a: { b: 1, c: 3, d: 4 } } }], 'merged through the chain; a relative plugin path stays the base file\'s');

  writeFileSync(path.join(dir, 'loop-a.json'), JSON.stringify({ extends: 'loop-b.json' }));
  writeFileSync(path.join(dir, 'loop-b.json'), JSON.stringify({ extends: 'loop-a.json' }));
  t.throws(() => loadConfig(path.join(dir, 'loop-a.json')), /"extends" makes a cycle/);
  t.throws(() => loadConfig(overlay(t, { extends: 'nope.json' })), /Cannot read config file .*nope\.json/);
  t.throws(() => loadConfig(overlay(t, { extends: 'default', plugins: [{ options: {} }] })), /plugins\[0\] needs a "resolve"/);
  t.throws(() => loadConfig(overlay(t, { extends: 42 })), /"extends" must be "default" or the path/);
});

t.test('SAWT_CONFIG=an overlay: sawt uses the merged config', async (t) => {
  const file = overlay(t, { extends: 'default', plugins: [{ resolve: '@sawt/plugin-engine', options: { defaultModel: 'sawt-hts' } }] });
  const env = { ...process.env, SAWT_CONFIG: file, SAWT_DATA_DIR: tempDir(t) };
  const r = JSON.parse((await run(process.execPath, [sawtBin, 'models', 'list', '--json'], { env, cwd: repoRoot })).stdout);
  t.ok(r.some((m) => m.model_id === 'sawt-mini') && r.some((m) => m.model_id === 'sawt-hts'), 'the default catalog');
});

t.test('config/single-user.json: one account with balance 0 speaks, denoises and runs many requests at once, nothing charged', async (t) => {
  const env = { ...process.env, SAWT_CONFIG: path.join(repoRoot, 'config/single-user.json'), SAWT_DATA_DIR: tempDir(t) };
  const cli = async (...args) => JSON.parse((await run(process.execPath, [sawtBin, ...args, '--json'], { env, cwd: repoRoot })).stdout);
  const { base, healthy, output } = await spawnServe(t, { env });
  t.ok(healthy, 'the server starts with the overlay', { output: output() });
  const acc = await cli('accounts', 'create', '--name', 'Me', '--plan', 'enterprise', '--balance', '0');
  const { key } = await cli('keys', 'create', '--account', acc.id);
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const speak = (model, voice) => fetch(`${base}/api/v1/text-to-speech/${model}`, { method: 'POST', headers, body: JSON.stringify({ voice_id: voice, text: 'مرحبا بكم في خدمة صوت للنطق العربي.', stability: 0.5, streaming: false }) })
    .then(async (r) => ({ status: r.status, body: Buffer.from(await r.arrayBuffer()) }));
  const many = await Promise.all([...Array(8)].map((_, i) => speak(i % 2 ? 'sawt-hts' : 'sawt-mini', i % 2 ? 'fusha-ziad' : 'fusha-omar')));
  t.same(many.map((r) => r.status), Array(8).fill(200), '8 requests at once, each 200 on a balance of 0');
  t.ok(many.every((r) => r.body.length > 48000), 'each with audio');
  const m = multipart('audio', 'speech.wav', many[1].body);
  const cleaned = await fetch(`${base}/api/v1/denoise`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': m.contentType }, body: m.body });
  t.equal(cleaned.status, 200, 'denoise too');
  await cleaned.arrayBuffer();
  const wallet = await cli('wallet', 'show', '--account', acc.id);
  t.equal(wallet.balance, 0, 'nothing charged');
  t.equal(wallet.reserved, 0, 'nothing held');
});
