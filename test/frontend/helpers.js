import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ENGINE = path.join(repoRoot, 'plugins/engine/dist/index.js');
/** The shared real model files (SAWT_MODELS_DIR layout). */
export const sharedModels = path.resolve(repoRoot, '../shared/models');
export const TASHKEEL = { model: 'tashkeel/libtashkeel-2024-01-04.onnx', inputMap: 'tashkeel/input_id_map.json', targetMap: 'tashkeel/target_id_map.json' };
export const haveTashkeel = Object.values(TASHKEEL).every((f) => existsSync(path.join(sharedModels, f)));
export const noTashkeelReason = `libtashkeel model not found under ${sharedModels}/tashkeel`;
