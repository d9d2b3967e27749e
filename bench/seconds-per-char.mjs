// Measures each available model's seconds of audio per billable character (the catalog's
// seconds_per_char, config/default.json): every built-in voice that speaks on the model reads three
// paragraphs at speed 1.0 with the in-process synthesizer; prints each voice and the median.
// Usage: node bench/seconds-per-char.mjs  (SAWT_MODELS_DIR for downloaded models such as sawt-neural)
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createSawt, tokens } from '@sawt/core';
import { LONG_TEXT, repoRoot, silentLogger } from '../test/helpers/server.js';

const TEXTS = [
  LONG_TEXT,
  'قال المدير إن الشركة حققت أرباحا كبيرة هذا العام، وإنها تخطط لافتتاح فروع جديدة في عدة مدن. وأضاف أن عدد الموظفين سيزداد بنسبة عشرين في المئة خلال السنوات القادمة.',
  'في صباح يوم جميل خرج الأطفال إلى الحديقة ليلعبوا تحت أشعة الشمس الدافئة، بينما جلست الأمهات يتحدثن عن شؤون البيت والمدرسة والسوق.',
];

const dataDir = mkdtempSync(path.join(tmpdir(), 'sawt-spc-'));
const app = await createSawt({
  runtime: { host: '127.0.0.1', port: 0, dataDir, modelsDir: process.env.SAWT_MODELS_DIR ?? path.join(dataDir, 'models'), configPath: path.join(repoRoot, 'config/default.json'), configDir: path.join(repoRoot, 'config') },
  logger: silentLogger,
});
await app.start();
try {
  const synthesizer = app.get(tokens.synthesizer);
  const account = await app.get(tokens.accounts).create({ name: 'seconds per char', plan: 'free' });
  const voices = await app.get(tokens.voices).list(account.id);
  for (const model of app.get(tokens.models).list().filter((m) => m.available)) {
    const perVoice = [];
    for (const voice of voices.filter((v) => !v.models || v.models.includes(model.model_id))) {
      let chars = 0;
      let samples = 0;
      for (const text of TEXTS) {
        const stream = await synthesizer.synthesize({ modelId: model.model_id, voiceId: voice.voice_id, accountId: account.id, text, speed: 1, stability: 0.5 });
        for await (const chunk of stream) samples += chunk.info.samples;
        chars += [...text.trim()].length;
      }
      const spc = samples / 24000 / chars;
      perVoice.push(spc);
      console.log(`${model.model_id} ${voice.voice_id}: ${chars} chars, ${(samples / 24000).toFixed(1)} s, ${spc.toFixed(4)} s/char`);
    }
    perVoice.sort((a, b) => a - b);
    if (perVoice.length) console.log(`${model.model_id}: ${perVoice.length} voices, median ${perVoice[perVoice.length >> 1].toFixed(4)} s/char (${perVoice[0].toFixed(4)}-${perVoice.at(-1).toFixed(4)}); configured ${model.secondsPerChar ?? 'none'}`);
  }
} finally {
  await app.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
