import { errors, observeSpeech, type Logger, type SpeechStream, type SpeechSynthesizer, type SynthesisRequest } from '@sawt/core';
import type { BuiltinVoiceCatalog, ConfiguredModelCatalog, VoiceConfig } from './catalog.js';
import { phonemeInventoryOf, refuseSilence, type SpeechBackend } from './backends.js';
import { checkPhonemePassages } from './frontend/phoneme-passages.js';
import type { TextFrontEnd } from './frontend/index.js';
import { SpeechSequence } from './speech-sequence.js';

export const OUTPUT_RATES = [8000, 16000, 22050, 24000] as const;

export class EngineSynthesizer implements SpeechSynthesizer {
  private readonly backends = new Map<string, SpeechBackend>();
  /** Synthesis jobs started and not yet ended or cancelled, per engine (the metrics' queue depth). */
  private readonly jobs = new Map<string, number>();

  constructor(
    private readonly models: ConfiguredModelCatalog,
    private readonly voices: BuiltinVoiceCatalog,
    private readonly frontEnd: TextFrontEnd,
    private readonly logger: Logger,
    backends: SpeechBackend[],
  ) {
    for (const b of backends) this.backends.set(b.engine, b);
  }

  /** Synthesis with a built-in voice (cloned voices: clone/service.ts's CloningSynthesizer wraps this one). */
  async synthesize(req: SynthesisRequest): Promise<SpeechStream> {
    const voice = this.voices.config(req.voiceId);
    if (!voice) throw errors.voiceNotFound(req.voiceId);
    return this.synthesizeVoice(req, voice);
  }

  /** Jobs per engine that were started and have not finished: running, or waiting for a native thread or for their reader. */
  jobsInFlight(): Array<{ engine: string; jobs: number }> {
    return [...this.backends.keys()].map((engine) => ({ engine, jobs: this.jobs.get(engine) ?? 0 }));
  }

  /** The engine of a model, or undefined when it is not offered. */
  engineOf(modelId: string): string | undefined {
    const model = this.models.get(modelId);
    return model?.available ? model.engine : undefined;
  }

  /**
   * Synthesis with the voice parameters `voice` (a built-in voice's, or one derived from it, as a
   * cloned voice's HTS parameters are); `voice.voice_id` names it in errors and logs.
   */
  async synthesizeVoice(req: SynthesisRequest, voice: VoiceConfig): Promise<SpeechStream> {
    const model = this.models.get(req.modelId);
    if (!model || !model.available) throw errors.modelNotFound(req.modelId);
    const backend = this.backends.get(model.engine);
    if (!backend) throw errors.internal(`Model '${model.model_id}' uses engine '${model.engine}', which this server does not run`);
    if ((voice.models && !voice.models.includes(model.model_id)) || !backend.acceptsVoice(voice)) {
      throw errors.voiceNotOnModel(req.voiceId, model.model_id, this.voices.voicesOf(model.model_id).map((v) => v.voice_id));
    }
    // [[ ]] passages: symbols the model can say, within the caps espeak survives (400 / 40001 otherwise).
    checkPhonemePassages(req.text, phonemeInventoryOf(backend, model.model_id));
    const sampleRate = req.sampleRate ?? 24000;
    const input = {
      text: req.text,
      dialect: voice.dialect[0] ?? null,
      diacritize: this.models.wantsDiacritics(model.model_id),
      phonemes: backend.phonemes,
    };
    const settings = { modelId: model.model_id, voice, speed: req.speed, stability: req.stability, sampleRate };
    // The first segment is synthesized as soon as it is through the front end; the others follow
    // (their front end runs meanwhile), so the first audio does not wait for the whole text.
    const { count, first, rest } = await this.frontEnd.processInParts(input);
    if (count === 0) throw errors.validation('text contains nothing that can be spoken');
    const head = await first;

    const started = performance.now();
    // A whole request without a sample of audio is refused (400), never an empty WAV that is paid for.
    const source = refuseSilence(rest
      ? new SpeechSequence(backend.synthesize({ ...head, ...settings, urgent: true }), async () => backend.synthesize({ ...(await rest), ...settings, urgent: false }))
      : backend.synthesize({ ...head, ...settings, urgent: true }));
    this.jobs.set(model.engine, (this.jobs.get(model.engine) ?? 0) + 1);
    source.once('close', () => this.jobs.set(model.engine, this.jobs.get(model.engine)! - 1));
    // Counted as the chunks go by, generated (not when the consumer reads them).
    let samples = 0;
    let firstMs = -1;
    const stream = observeSpeech(source, ({ info }) => {
      if (firstMs < 0) firstMs = performance.now() - started;
      samples += info.samples;
    });
    stream.once('end', () => {
      const elapsed = performance.now() - started;
      const audioSeconds = samples / sampleRate;
      this.logger.debug(
        { requestId: req.requestId, model: model.model_id, voice: voice.voice_id, segments: count, audioSeconds, firstChunkMs: Math.round(firstMs), elapsedMs: Math.round(elapsed), rtf: audioSeconds ? elapsed / 1000 / audioSeconds : null },
        'synthesis finished',
      );
    });
    return stream;
  }
}
