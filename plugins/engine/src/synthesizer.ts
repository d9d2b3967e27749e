import { checkBackendContract, errors, isSawtError, SawtError, speechStream, type BackendSynthesis, type SpeechBackendRegistry, type SpeechChunk, type SpeechStream, type SpeechSynthesizer, type SynthesisRequest } from '@sawt/core';
import { Resampler } from '@sawt/native';
import type { BuiltinVoiceCatalog, ConfiguredModelCatalog, VoiceConfig } from './catalog.js';
import { phonemeInventoryOf, phonesFor, type EngineBackend } from './backends.js';
import { checkPhonemePassages } from './frontend/phoneme-passages.js';
import type { TextFrontEnd } from './frontend/index.js';
import type { BackendHandOff } from './frontend/ready-input.js';

export const OUTPUT_RATES = [8000, 16000, 22050, 24000] as const;

/** How long a back end may take for its next chunk unless it says otherwise (then 503). */
const CHUNK_TIMEOUT_MS = 30_000;

type Job = Omit<BackendSynthesis<unknown, VoiceConfig>, 'sentences' | 'urgency' | 'signal'>;

/** The speech back ends (the registry plugins add theirs to) and synthesis through them. */
export class EngineSynthesizer implements SpeechSynthesizer, SpeechBackendRegistry {
  readonly backends = new Map<string, EngineBackend>();
  /** Synthesis jobs started and not yet ended or cancelled, per engine (the metrics' queue depth). */
  private readonly jobs = new Map<string, number>();

  constructor(
    private readonly models: ConfiguredModelCatalog,
    private readonly voices: BuiltinVoiceCatalog,
    private readonly frontEnd: TextFrontEnd,
    private readonly handOff: BackendHandOff,
  ) {}

  /** Adds a back end with the models and voices it brings (a plugin's: models are billed at their price). */
  add(backend: EngineBackend): void {
    checkBackendContract(backend);
    if (this.backends.has(backend.engine)) throw new Error(`speech back end '${backend.engine}' is added twice`);
    this.backends.set(backend.engine, backend);
    const own = (backend.models ?? []).map((m) => m.model_id);
    this.models.add((backend.models ?? []).map((m) => ({ ...m, engine: backend.engine, access: m.access ?? 'public' })));
    this.voices.add((backend.voices ?? []).map((v) => ({ ...v, models: v.models ?? own })));
    if (own.length) this.models.resolveDefaultVoices(this.voices);
  }

  /** Synthesis with a built-in voice (cloned voices: clone/service.ts's CloningSynthesizer wraps this one). */
  async synthesize(req: SynthesisRequest): Promise<SpeechStream> {
    const voice = this.voices.config(req.voice?.voice_id ?? req.voiceId);
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
   * cloned voice's HTS parameters are); `voice.voice_id` names it in errors and logs. The model
   * comes resolved with the request (the paid path), else by its id.
   */
  async synthesizeVoice(req: SynthesisRequest, voice: VoiceConfig): Promise<SpeechStream> {
    const model = req.model?.model_id === req.modelId ? req.model : this.models.get(req.modelId);
    if (!model || !model.available) throw errors.modelNotFound(req.modelId);
    const backend = this.backends.get(model.engine);
    if (!backend) throw errors.internal(`Model '${model.model_id}' uses engine '${model.engine}', which this server does not run`);
    if ((voice.models && !voice.models.includes(model.model_id)) || !backend.acceptsVoice(voice)) {
      throw errors.voiceNotOnModel(req.voiceId, model.model_id, this.voices.voicesOf(model.model_id).map((v) => v.voice_id));
    }
    // [[ ]] passages: symbols the model can say, within the caps espeak survives (400 / 40001 otherwise).
    checkPhonemePassages(req.text, phonemeInventoryOf(backend.input, model.model_id));
    const dialect = voice.dialect[0] ?? null;
    // The first segment is synthesized as soon as it is through the front end; the others follow
    // (their front end runs meanwhile), so the first audio does not wait for the whole text.
    const { count, first, rest } = await this.frontEnd.processInParts({ text: req.text, dialect, diacritize: this.models.wantsDiacritics(model.model_id), phonemes: phonesFor(backend.input) });
    if (count === 0) throw errors.validation('text contains nothing that can be spoken');
    const ready = (segments: string[], isFirst = false) => this.handOff.sentences(backend.input, segments, { modelId: model.model_id, dialect, first: isFirst });
    const parts: Array<unknown[] | Promise<unknown[]>> = [ready(await first, true)];
    if (rest) {
      const later = rest.then((segments) => ready(segments));
      later.catch(() => {}); // awaited in speak(), after the first part's audio
      parts.push(later);
    }
    const job: Job = { model, voice, speed: req.speed, stability: req.stability, sampleRate: req.sampleRate ?? 24000 };
    return speechStream((signal) => this.speak(backend, parts, job, signal));
  }

  /**
   * The parts' audio one after the other, as one stream: a part's back-end synthesis starts once
   * the previous part's audio has been generated (so it never competes with it), its segment
   * numbers continue the previous part's. A back end's own rate is resampled to the job's; its
   * failure is 500 / 50001, a chunk that does not come in time 503. A synthesis that ends without a
   * sample of audio is 400 / 40001 (the client gets no empty WAV that is paid for).
   */
  private async *speak(backend: EngineBackend, parts: Array<unknown[] | Promise<unknown[]>>, job: Job, signal: AbortSignal): AsyncGenerator<SpeechChunk> {
    const engine = backend.engine;
    this.jobs.set(engine, (this.jobs.get(engine) ?? 0) + 1);
    const resampler = backend.sampleRate && backend.sampleRate !== job.sampleRate ? new Resampler(backend.sampleRate, job.sampleRate) : null;
    let samples = 0;
    let base = 0;
    try {
      for (const [i, part] of parts.entries()) {
        const sentences = await part;
        if (signal.aborted) return;
        const final = i === parts.length - 1;
        let last = -1;
        const chunks = timed(backend.synthesize({ ...job, sentences, urgency: i === 0 ? 'urgent' : 'later', signal }), engine, backend.chunkTimeoutMs ?? CHUNK_TIMEOUT_MS);
        for await (let chunk of chunks) {
          last = chunk.info.segment;
          if (resampler) chunk = resampled(resampler, chunk, job.sampleRate);
          samples += chunk.info.samples;
          yield base === 0 && (final || !chunk.isLast) ? chunk : { ...chunk, isLast: final && chunk.isLast, info: { ...chunk.info, segment: chunk.info.segment + base } };
        }
        base += last + 1;
      }
      if (samples === 0) throw errors.validation('text contains nothing that can be spoken (its audio is empty)');
    } catch (error) {
      // Anything but a client error already in the table is the engine's failure (the cause is kept for the log).
      throw isSawtError(error) ? error : errors.internal('Speech synthesis failed', error);
    } finally {
      this.jobs.set(engine, this.jobs.get(engine)! - 1);
    }
  }
}

/** `chunk` at `rate` (the resampler's tail joins the last chunk). */
function resampled(resampler: Resampler, chunk: SpeechChunk, rate: number): SpeechChunk {
  const parts = [resampler.process(new Int16Array(chunk.pcm.buffer, chunk.pcm.byteOffset, chunk.pcm.length / 2)), ...(chunk.isLast ? [resampler.flush()] : [])];
  const pcm = Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
  return { pcm, sampleRate: rate, isLast: chunk.isLast, info: { ...chunk.info, samples: pcm.length / 2 } };
}

/** `chunks`, failing with 503 / 50001 when the next one takes longer than `timeoutMs`. */
async function* timed(chunks: AsyncIterable<SpeechChunk>, engine: string, timeoutMs: number): AsyncGenerator<SpeechChunk> {
  const it = chunks[Symbol.asyncIterator]();
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new SawtError('unavailable', `The speech engine '${engine}' sent no audio for ${timeoutMs / 1000} s; try again later`)), timeoutMs)));
    const next = await Promise.race([it.next(), late]).finally(() => clearTimeout(timer));
    if (next.done) return;
    yield next.value;
  }
}
