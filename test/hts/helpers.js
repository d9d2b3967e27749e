import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ENGINE = path.join(repoRoot, 'plugins/engine/dist/index.js');
/** The bundled HTS voice (models/ in the repository). */
export const VOICE_FILE = path.join(repoRoot, 'models/hts/ara_norm_ziad/ara_norm_ziad_hts.htsvoice');
/** Reference labels (test data, not shipped): ../shared/models/hts/golden. */
export const GOLDEN = path.resolve(repoRoot, '../shared/models/hts/golden');
