import type { FromSchema } from '@sawt/core';

export const denoiseConfigSchema = {
  type: 'object',
  properties: {
    backend: { enum: ['rnnoise', 'gtcrn', 'dfn3'], default: 'dfn3', description: "Denoiser: 'dfn3' (DeepFilterNet3, 48 kHz, run by the native engine; its model files are bundled; if they are missing the server refuses to start), 'rnnoise' (embedded WASM in a worker thread, 48 kHz, lighter and weaker) or 'gtcrn' (streaming ONNX model, 16 kHz; needs its model file, else the server refuses to start)" },
    modelPath: { type: 'string', description: "GTCRN model file (backend 'gtcrn'); default denoise/gtcrn/gtcrn_simple.onnx in SAWT_MODELS_DIR (or the bundled models/)" },
    dfn3Dir: { type: 'string', description: "DeepFilterNet3 model directory (backend 'dfn3'): enc.onnx, erb_dec.onnx, df_dec.onnx; default: each file from denoise/dfn3/ in SAWT_MODELS_DIR, else the bundled models/" },
    executionProvider: { enum: ['cpu', 'cuda'], default: 'cpu', description: "DeepFilterNet3 on ONNX Runtime's CUDA execution provider; without the provider library or a GPU the server refuses to start, naming what is missing" },
    dfn3Threads: { type: 'integer', minimum: 0, maximum: 256, default: 1, description: 'ONNX Runtime threads per DeepFilterNet3 model run (0: all cores); 1 measured fastest on 2 cores' },
    speechGuard: { type: 'boolean', default: true, description: 'DeepFilterNet3 only: when what the model removes is speech-like (modulated like speech, with undecided masks: another talker, babble), blend the output back towards the input (down to 20 % enhanced), since DFN3 was not trained to separate talkers and otherwise removes parts of the target talker (issue 34: babble at 0 and 5 dB SNR lost 0.5-1.7 dB SI-SDR; with the guard it gains 0-0.4 dB). Stationary and impulsive noise are left to the model' },
    snrBlend: { type: 'boolean', default: true, description: "DeepFilterNet3 only: blend the output towards the input by the input's SNR as estimated from what the model keeps and removes, since at a high SNR its own distortion of the speech outweighs the noise it removes (issue 34: at 20 dB SNR the model alone lost 0.8-2.8 dB SI-SDR); a clean recording comes out about as it went in, a noisy one keeps the model's full effect" },
    pricePerMinute: { type: 'number', minimum: 0, default: 0.01, description: 'Price per started minute of audio (decimal units, at most 6 decimals)' },
    maxFileBytes: { type: 'integer', minimum: 1, default: 209715200, description: 'Upload size limit (200 MB); crossing it answers 400 at once' },
    maxDurationSeconds: { type: 'number', exclusiveMinimum: 0, default: 900, description: 'Audio duration limit (15 minutes)' },
    ffmpegPath: { type: 'string', default: 'ffmpeg' },
    ffprobePath: { type: 'string', default: 'ffprobe' },
    countConcurrency: { type: 'boolean', default: true, description: "Count a denoise request against the plan's concurrency limit (429 / 42901), from before the upload is decoded until the answer is sent" },
  },
} as const;

/** The options as validated (defaults applied); what each means is in the schema's descriptions. */
export type DenoiseOptions = FromSchema<typeof denoiseConfigSchema>;

export function sizeLimitText(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  if (Number.isInteger(mb)) return `${mb} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

export function durationLimitText(seconds: number): string {
  if (seconds % 60 === 0) return `${seconds / 60} minute${seconds === 60 ? '' : 's'}`;
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}
