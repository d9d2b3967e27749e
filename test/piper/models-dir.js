// A temporary SAWT_MODELS_DIR holding a stand-in voice under kareem's file names (sawt-neural).
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers/server.js';
import { STANDIN } from './helpers.js';

export function standinModelsDir(t, size = 'tiny') {
  const dir = tempDir(t, 'sawt-piper-models-');
  mkdirSync(join(dir, 'piper'));
  symlinkSync(join(STANDIN, `ar_JO-standin-${size}.onnx`), join(dir, 'piper/ar_JO-kareem-medium.onnx'));
  symlinkSync(join(STANDIN, `ar_JO-standin-${size}.onnx.json`), join(dir, 'piper/ar_JO-kareem-medium.onnx.json'));
  return dir;
}
