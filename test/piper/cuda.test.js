// executionProvider 'cuda' where this machine has no CUDA provider library (nor GPU): the server
// refuses to start, naming what is missing — for Piper, the diacritizer and DeepFilterNet3.
// (Untested on a GPU: no task of this work had one.)
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t from 'tap';
import { createSawt } from '@sawt/core';
import { defaultConfigPath, silentLogger, tempDir } from '../helpers/server.js';
import { standinModelsDir } from './models-dir.js';

const { locateAddon } = await import('../../plugins/engine/dist/index.js');
const skip = existsSync(join(dirname(locateAddon()), 'libonnxruntime_providers_cuda.so')) && 'the CUDA provider library is installed here';

async function startError(t, edit, modelsDir = tempDir(t)) {
  const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  edit(config);
  let app = null;
  try {
    // The denoise plugin loads its model when it registers (createSawt), the engine when it starts.
    app = await createSawt({
      runtime: { host: '127.0.0.1', port: 0, dataDir: tempDir(t), modelsDir, configPath: defaultConfigPath, configDir: join(defaultConfigPath, '..') },
      config, logger: silentLogger,
    });
    await app.start();
    return null;
  } catch (error) {
    return error;
  } finally {
    await app?.stop().catch(() => {});
  }
}

const plugin = (config, name) => config.plugins.find((p) => p.resolve === name).options;

t.test('engine cuda: Piper and the diacritizer refuse to start, naming the provider library', { skip }, async (t) => {
  const e = await startError(t, (c) => { plugin(c, '@sawt/plugin-engine').executionProvider = 'cuda'; }, standinModelsDir(t));
  t.match(e?.message, /CUDA execution provider is not available: libonnxruntime_providers_shared\.so is not installed in /);
});

t.test('denoise cuda: DeepFilterNet3 refuses to start, naming the provider library', { skip }, async (t) => {
  const e = await startError(t, (c) => { plugin(c, '@sawt/plugin-denoise').executionProvider = 'cuda'; });
  t.match(e?.message, /CUDA execution provider is not available: libonnxruntime_providers_shared\.so is not installed in /);
});
