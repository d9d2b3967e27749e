import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { createSawt, PluginError } from '@sawt/core';
import { defaultConfigPath, repoRoot, silentLogger, startServer, tempDir } from '../helpers/server.js';

const fixture = (name) => path.join(repoRoot, 'test/fixtures/plugins', name);
const boot = (t, plugins) => createSawt({ config: { plugins }, runtime: { dataDir: tempDir(t), configDir: repoRoot, port: 0 }, logger: silentLogger });
const storage = { resolve: '@sawt/plugin-storage' };

async function bootError(t, plugins) {
  try {
    const app = await boot(t, plugins);
    await app.start();
    await app.stop();
  } catch (e) {
    return e;
  }
  t.fail('expected the boot to fail');
}

t.test('a third-party plugin named by path in a config file is loaded, ordered and serves a route', async (t) => {
  const dir = tempDir(t);
  const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  config.plugins.push({ resolve: path.relative(dir, fixture('hello/index.js')), options: { greeting: 'ahlan' } });
  const configPath = path.join(dir, 'sawt.json');
  writeFileSync(configPath, JSON.stringify(config));
  const srv = await startServer(t, { runtime: { configPath, configDir: dir } });
  t.ok(srv.app.plugins.findIndex((p) => p.plugin.id === 'hello') > srv.app.plugins.findIndex((p) => p.plugin.id === 'transport-http'), 'ordered after its providers');
  const c = await srv.client({ name: 'Salma' });
  const res = await fetch(`${srv.api}/hello`, { headers: c.headers });
  t.equal(res.status, 200);
  t.same(await res.json(), { message: 'ahlan, Salma', voices: 19 }, 'the 12 sawt-mini voices and the 7 of the bundled HTS voice (2 Fusha, 5 dialects)');
});

t.test('a missing provider refuses to boot, naming the plugin and the service', async (t) => {
  const e = await bootError(t, [{ resolve: '@sawt/plugin-auth' }]);
  t.ok(e instanceof PluginError);
  t.equal(e.code, 'SAWT_ERR_PLUGIN_MISSING_PROVIDER');
  t.match(e.message, /'auth' needs service 'storage\.database'/);
});

t.test('a dependency cycle is reported with its path', async (t) => {
  const e = await bootError(t, [{ resolve: fixture('cycle-a/index.js') }, { resolve: fixture('cycle-b/index.js') }]);
  t.equal(e.code, 'SAWT_ERR_PLUGIN_CYCLE');
  t.match(e.message, /cycle-a -> cycle-b -> cycle-a/);
});

t.test('a plugin that is not installed, and one whose own dependency is missing, are told apart', async (t) => {
  const notInstalled = await bootError(t, [{ resolve: 'sawt-plugin-nobody-wrote' }]);
  t.equal(notInstalled.code, 'SAWT_ERR_PLUGIN_NOT_FOUND');
  t.match(notInstalled.message, /sawt-plugin-nobody-wrote.*not installed/);
  const missingFile = await bootError(t, [{ resolve: './test/fixtures/plugins/nope.js' }]);
  t.equal(missingFile.code, 'SAWT_ERR_PLUGIN_NOT_FOUND');
  const broken = await bootError(t, [{ resolve: fixture('broken-import/index.js') }]);
  t.equal(broken.code, 'SAWT_ERR_PLUGIN_LOAD');
  t.match(broken.message, /sawt-dependency-that-does-not-exist/);
});

t.test('invalid options are refused with the plugin id and the offending field', async (t) => {
  const e = await bootError(t, [storage, { resolve: '@sawt/plugin-billing', options: { rateLimit: { max: 'lots' } } }]);
  t.equal(e.code, 'SAWT_ERR_PLUGIN_OPTIONS');
  t.match(e.message, /'billing'.*rateLimit\/max/);
});

t.test('a module that is not a plugin is refused', async (t) => {
  const e = await bootError(t, [{ resolve: path.join(repoRoot, 'test/helpers/server.js') }]);
  t.equal(e.code, 'SAWT_ERR_PLUGIN_INVALID');
});

t.test('a plugin that fails to start is named, and the ones already started are stopped', async (t) => {
  globalThis.__sawtLifecycle = [];
  const e = await bootError(t, [{ resolve: fixture('recorder/x.js') }, { resolve: fixture('fails-start/index.js') }]);
  t.equal(e.code, 'SAWT_ERR_PLUGIN_START');
  t.match(e.message, /'fails-start' failed to start: cannot reach the licence server/);
  t.ok(globalThis.__sawtLifecycle.includes('stop:rec-x'), 'started plugin stopped again');
});

t.test('plugins start in dependency order and stop in reverse, whatever the config order', async (t) => {
  globalThis.__sawtLifecycle = [];
  const app = await boot(t, [{ resolve: fixture('recorder/index.js') }, { resolve: fixture('recorder/y.js') }, { resolve: fixture('recorder/x.js') }]);
  await app.start();
  await app.stop();
  t.same(globalThis.__sawtLifecycle, [
    'register:rec-x', 'register:rec-y', 'register:rec-z',
    'start:rec-x', 'start:rec-y', 'start:rec-z',
    'stop:rec-z', 'stop:rec-y', 'stop:rec-x',
  ]);
});

t.test('a plugin that asks for a service it did not declare is refused, naming both', async (t) => {
  const e = await bootError(t, [{ resolve: fixture('recorder/x.js') }, { resolve: fixture('undeclared/index.js') }]);
  t.equal(e.code, 'SAWT_ERR_PLUGIN_REGISTER');
  t.match(e.message, /'undeclared' asked for service 'rec\.x' without declaring it/);
});

t.test('a plugin receives what it names in deps, resolved; optionalDeps without a provider come as undefined', async (t) => {
  const withDeps = { resolve: path.join(repoRoot, 'test/core/fixtures/with-deps.js') };
  globalThis.__sawtReceived = null;
  const app = await boot(t, [withDeps, { resolve: fixture('recorder/x.js') }]);
  t.ok(app.plugins.findIndex((p) => p.plugin.id === 'with-deps') > app.plugins.findIndex((p) => p.plugin.id === 'rec-x'), 'ordered after the provider of its deps');
  t.same(globalThis.__sawtReceived, { x: { id: 'rec-x' }, y: undefined });
  const e = await bootError(t, [withDeps]);
  t.equal(e.code, 'SAWT_ERR_PLUGIN_MISSING_PROVIDER');
  t.match(e.message, /'with-deps' needs service 'rec\.x'/);
  const bad = await bootError(t, [{ resolve: path.join(repoRoot, 'test/core/fixtures/bad-deps.js') }]);
  t.equal(bad.code, 'SAWT_ERR_PLUGIN_INVALID');
  t.match(bad.message, /deps must be an object of service refs/);
  const old = await bootError(t, [{ resolve: fixture('old-consumes/index.js') }]);
  t.equal(old.code, 'SAWT_ERR_PLUGIN_INVALID');
  t.match(old.message, /'.*old-consumes.*'.*consumes is no longer read: name the services in deps/);
});

t.test('two plugins providing the same service are refused', async (t) => {
  const e = await bootError(t, [storage, { resolve: '@sawt/plugin-storage', id: 'x' }]);
  t.ok(e.code === 'SAWT_ERR_PLUGIN_DUPLICATE_PROVIDER' || e.code === 'SAWT_ERR_PLUGIN_INVALID');
});
