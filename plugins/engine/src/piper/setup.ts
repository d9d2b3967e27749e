/** Which files a Piper model needs, and loading its voice files when the engine starts. */
import type { ModelFiles } from '@sawt/core';
import type { ModelConfig, VoiceConfig } from '../catalog.js';
import { loadPiper, type PiperBackend } from './backend.js';

/** The model's files with the .onnx.json of each .onnx added when the config leaves it out. */
export function piperFiles(m: ModelConfig): string[] {
  const files = [...(m.files ?? [])];
  const onnx = files.filter((f) => f.endsWith('.onnx'));
  if (onnx.length !== 1) throw new Error(`model '${m.model_id}' (engine piper) must list exactly one .onnx file in "files" (found ${onnx.length})`);
  if (!files.includes(`${onnx[0]}.json`)) files.push(`${onnx[0]}.json`);
  return files;
}

/**
 * Loads every Piper model whose files are present. A model whose .onnx is there without its
 * .onnx.json, or whose files fail a check, stops the start with an Error saying which and why.
 */
export async function loadPiperModels(
  backend: PiperBackend,
  files: ModelFiles,
  options: { models: ModelConfig[]; voices: VoiceConfig[]; executionProvider: 'cpu' | 'cuda'; piper: { threads: number } },
  info: (o: object, m: string) => void,
): Promise<void> {
  await Promise.all(options.models.filter((m) => m.engine === 'piper').map(async (m) => {
    const all = m.files ?? [];
    const onnxFile = all.find((f) => f.endsWith('.onnx'))!;
    const jsonFile = all.find((f) => f === `${onnxFile}.json`)!;
    const onnx = files.find(onnxFile);
    const json = files.find(jsonFile);
    if (!onnx) return;
    if (!json) throw new Error(`model '${m.model_id}': ${onnx} is present but its config ${jsonFile} is not (looked in ${files.searched(jsonFile)}); put the voice's .onnx.json beside it or run \`sawt models pull ${m.model_id}\``);
    const voices = options.voices
      .filter((v) => v.piper && (!v.models || v.models.includes(m.model_id)))
      .map((v) => ({ voice_id: v.voice_id, piper: v.piper! }));
    const started = performance.now();
    backend.add(await loadPiper({ modelId: m.model_id, onnx, json, voices, executionProvider: options.executionProvider, threads: options.piper.threads }));
    info({ model: m.model_id, file: onnx, loadMs: Math.round(performance.now() - started) }, 'Piper voice loaded');
  }));
}
