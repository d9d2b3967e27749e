import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ENGINE = path.join(repoRoot, 'plugins/engine/dist/index.js');
/** The models bundled in the repository (models/, the SAWT_MODELS_DIR layout). */
export const bundledModels = path.join(repoRoot, 'models');
export const TASHKEEL = { model: 'tashkeel/libtashkeel-2024-01-04.onnx', inputMap: 'tashkeel/input_id_map.json', targetMap: 'tashkeel/target_id_map.json' };
