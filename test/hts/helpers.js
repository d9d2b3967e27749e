import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ENGINE = path.join(repoRoot, 'plugins/engine/dist/index.js');
export const SHARED_HTS = path.resolve(repoRoot, '../shared/models/hts');
export const GOLDEN = path.join(SHARED_HTS, 'golden');
export const VOICE_FILE = path.join(SHARED_HTS, 'ara_norm_ziad/ara_norm_ziad_hts.htsvoice');
export const haveVoice = existsSync(VOICE_FILE);
export const noVoiceReason = `HTS voice not found at ${VOICE_FILE}`;

/** A temporary SAWT_MODELS_DIR with hts/ linked to the shared voice. */
export function modelsDirWithVoice(t) {
  const dir = mkdtempSync(path.join(tmpdir(), 'sawt-hts-models-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  symlinkSync(SHARED_HTS, path.join(dir, 'hts'));
  return dir;
}
