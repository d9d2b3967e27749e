import { checkBackendContract, errors, isSawtError, meetsTextMinimum, SawtError, speechStream, TEXT_TOO_SHORT_MESSAGE, type BackendSynthesis, type PreparedSpeech, type PronunciationDictionaries, type ResolvedDictionaryVersion, type SpeechBackendRegistry, type SpeechChunk, type SpeechPreparation, type SpeechStep, type SpeechStream, type SpeechSynthesizer, type SynthesisRequest } from '@sawt/core';
import { Resampler } from '@sawt/native';
import type { BuiltinVoiceCatalog, ConfiguredModelCatalog, VoiceConfig } from './catalog.js';
import { phonemeInventoryOf, phonesFor, type EngineBackend } from './backends.js';
import { checkPhonemePassages } from './frontend/phoneme-passages.js';
import type { TextFrontEnd } from './frontend/index.js';
import type { BackendHandOff } from './frontend/ready-input.js';
import { isSsml, prepareSpeechText, PronunciationMatcher } from './frontend/ssml/index.js';
import { SourceWords } from './source-words.js';
import { stepsAudio, withGain } from './speech-steps.js';

/** How long a back end may take for its next chunk unless it says otherwise (then 503). */
const CHUNK_TIMEOUT_MS = 30_000;

type Job = Omit<BackendSynthesis<unknown, VoiceConfig>, 'sentences' | 'urgency' | 'signal'>;

/** Compiled dictionary matchers kept (combinations of dictionary versions). */
const MATCHER_CACHE = 64;

const constant = <T>(v: T) => () => v;

/** The speaking rates (speed × prosody rate) of a back end that names none. */
const DEFAULT_RATE_RANGE = { min: 0.5, max: 2 };

/** The speech back ends (the registry plugins add theirs to) and synthesis through them. */
export class EngineSynthesizer implements SpeechSynthesizer, SpeechBackendRegistry {
  readonly backends = new Map<string, EngineBackend>();
  /** Synthesis jobs started and not yet ended or cancelled, per engine (the metrics' queue depth). */
  private readonly jobs = new Map<string, number>();
  /** The accounts' pronunciation dictionaries (the dictionaries plugin hands them over); null: none on this server. */
  private dictionaries: PronunciationDictionaries | null = null;
  /** Compiled rules by the dictionary versions they come from (matcherFor). */
  private readonly matchers = new Map<string, PronunciationMatcher>();

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

  usePronunciationDictionaries(dictionaries: PronunciationDictionaries): void {
    this.dictionaries = dictionaries;
  }

  /** A request's text, dictionary rules and model → what billing counts and the steps synthesis reads (frontend/ssml/README.md). */
  async prepare(req: SpeechPreparation): Promise<PreparedSpeech> {
    const model = req.model?.model_id === req.modelId ? req.model : this.models.get(req.modelId);
    if (!model || !model.available) throw errors.modelNotFound(req.modelId);
    const backend = this.backends.get(model.engine);
    if (!backend) throw errors.internal(`Model '${model.model_id}' uses engine '${model.engine}', which this server does not run`);
    const matcher = await this.matcherFor(req);
    const textRule = req.textRule !== false;
    if (!matcher && !isSsml(req.text, req.textType) && !/<break[\s/>]/iu.test(req.text)) {
      if (textRule && !meetsTextMinimum(req.text)) throw errors.validation(TEXT_TOO_SHORT_MESSAGE);
      return { billableText: req.text.trim(), steps: [], markup: 'plain' };
    }
    const range = backend.rateRange ?? DEFAULT_RATE_RANGE;
    const prepared = prepareSpeechText({
      text: req.text, ...(req.textType && { textType: req.textType }), ...(matcher && { matcher }), speed: req.speed, textRule,
      model: { id: model.model_id, inventory: phonemeInventoryOf(backend.input, model.model_id), minRate: range.min, maxRate: range.max },
    });
    const steps: SpeechStep[] = prepared.steps.map((s) => (s.kind === 'speak' ? { kind: 'speak', text: s.text, prosody: s.prosody, lang: s.lang, ...(s.marks && { marks: s.marks }) } : s));
    return { billableText: prepared.billableText, steps, markup: prepared.document.markup };
  }

  /**
   * The compiled rules of a request's dictionaries and own rules (null: none). A version's rules never
   * change: the last MATCHER_CACHE combinations are kept (compiling 3,000 rules took 33 ms).
   */
  private async matcherFor(req: SpeechPreparation): Promise<PronunciationMatcher | null> {
    if (!req.dictionaryLocators?.length && !req.rules?.length) return null;
    const versions: ResolvedDictionaryVersion[] = [];
    if (req.dictionaryLocators?.length) {
      if (!this.dictionaries) throw new SawtError('notFound', `Pronunciation dictionary '${req.dictionaryLocators[0]!.pronunciation_dictionary_id}' not found: this server keeps no pronunciation dictionaries (the dictionaries plugin is not loaded)`);
      const d = this.dictionaries;
      versions.push(...(d.resolveVersions ? await d.resolveVersions(req.accountId, req.dictionaryLocators) : [{ versionId: '', rules: constant(await d.resolveLocators(req.accountId, req.dictionaryLocators)) }]));
    }
    const compile = () => new PronunciationMatcher([...versions.flatMap((v) => v.rules()), ...(req.rules ?? [])]);
    if (req.rules?.length || versions.some((v) => !v.versionId)) return compile();
    const key = versions.map((v) => v.versionId).join('|');
    let matcher = this.matchers.get(key);
    if (matcher) this.matchers.delete(key); // most recently used last
    else matcher = compile();
    this.matchers.set(key, matcher);
    if (this.matchers.size > MATCHER_CACHE) this.matchers.delete(this.matchers.keys().next().value!);
    return matcher;
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

  /** Synthesis with the voice parameters `voice` (a built-in voice's, or a clone's derived from one). */
  async synthesizeVoice(req: SynthesisRequest, voice: VoiceConfig): Promise<SpeechStream> {
    const model = req.model?.model_id === req.modelId ? req.model : this.models.get(req.modelId);
    if (!model || !model.available) throw errors.modelNotFound(req.modelId);
    const backend = this.backends.get(model.engine);
    if (!backend) throw errors.internal(`Model '${model.model_id}' uses engine '${model.engine}', which this server does not run`);
    if ((voice.models && !voice.models.includes(model.model_id)) || !backend.acceptsVoice(voice)) {
      throw errors.voiceNotOnModel(req.voiceId, model.model_id, this.voices.voicesOf(model.model_id).map((v) => v.voice_id));
    }
    const dialect = voice.dialect[0] ?? null;
    const job: Job = { model, voice, speed: req.speed, stability: req.stability, sampleRate: req.sampleRate ?? 24000, ...(req.background === true && { background: true }) };
    const urgent = req.background !== true;
    if (req.steps?.length) return this.synthesizeSteps(backend, req.steps, job, dialect, urgent);
    // [[ ]] passages: symbols the model can say, within the caps espeak survives (400 / 40001 otherwise).
    checkPhonemePassages(req.text, phonemeInventoryOf(backend.input, model.model_id));
    // The first segment is synthesized as soon as it is through the front end; the others follow
    // (their front end runs meanwhile), so the first audio does not wait for the whole text.
    const source = new SourceWords(req.text);
    const { count, parts } = await this.frontParts(backend, job, req.text, dialect, urgent, source);
    if (count === 0) throw errors.validation('text contains nothing that can be spoken');
    await parts[0]; // the first part's failures are the request's
    return speechStream((signal) => this.counted(backend.engine, this.partsAudio(backend, parts, job, signal, urgent, source)));
  }

  /**
   * A prepared text's steps as one stream (speech-steps.ts); the first speak step's front end runs before
   * the stream is returned (its 400s are the request's), each next one's while the step before it plays.
   */
  private async synthesizeSteps(backend: EngineBackend, steps: readonly SpeechStep[], job: Job, dialect: string | null, urgent: boolean): Promise<SpeechStream> {
    const inventory = phonemeInventoryOf(backend.input, job.model.model_id);
    for (const s of steps) if (s.kind === 'speak') checkPhonemePassages(s.text, inventory);
    const firstSpeak = steps.findIndex((s) => s.kind === 'speak');
    const fronts = new Map<number, Promise<{ count: number; parts: Array<Promise<unknown[]>> }>>();
    const front = (k: number) => {
      let f = fronts.get(k);
      if (!f) {
        f = this.frontParts(backend, job, (steps[k] as Extract<SpeechStep, { kind: 'speak' }>).text, dialect, urgent && k === firstSpeak);
        f.catch(() => {}); // awaited when its step plays
        fronts.set(k, f);
      }
      return f;
    };
    if (firstSpeak >= 0) await (await front(firstSpeak)).parts[0];
    const nextSpeak = (k: number) => steps.findIndex((s, j) => j > k && s.kind === 'speak');
    return speechStream((signal) => this.counted(backend.engine, stepsAudio(steps, {
      sampleRate: job.sampleRate,
      hasAudio: async (k) => (await front(k)).count > 0,
      speak: async (k, stepSignal) => {
        const step = steps[k] as Extract<SpeechStep, { kind: 'speak' }>;
        const { count, parts } = await front(k);
        const next = nextSpeak(k);
        if (next >= 0) void front(next);
        if (count === 0) return null;
        const stepJob: Job = { ...job, speed: job.speed * step.prosody.rate, ...(step.prosody.pitchSemitones && { pitchSemitones: step.prosody.pitchSemitones }) };
        const audio = this.partsAudio(backend, parts, stepJob, stepSignal, urgent && k === firstSpeak);
        return step.prosody.volumeDb === 0 ? audio : withGain(audio, step.prosody.volumeDb);
      },
    }, signal)));
  }

  /** `text` through the front end in two parts (the first segment, then the others), each ready for `backend`; `source` learns the segments in order. */
  private async frontParts(backend: EngineBackend, job: Job, text: string, dialect: string | null, isFirst: boolean, source?: SourceWords): Promise<{ count: number; parts: Array<Promise<unknown[]>> }> {
    const model = job.model;
    // Only a request's first text goes ahead of waiting model work; a long-form job's runs in the background lanes.
    const lanes = { ...(!isFirst && { urgent: false as const }), ...(job.background === true && { background: true as const }) };
    const { count, first, rest } = await this.frontEnd.processInParts({ text, dialect, diacritize: this.models.wantsDiacritics(model.model_id), phonemes: phonesFor(backend.input), ...lanes });
    if (count === 0) return { count, parts: [] };
    const ready = (segments: string[], urgent = false) => {
      source?.addSegments(segments);
      return this.handOff.sentences(backend.input, segments, { modelId: model.model_id, dialect, first: urgent });
    };
    const parts = [first.then((segments) => ready(segments, isFirst))];
    if (rest) parts.push(rest.then((segments) => ready(segments)));
    for (const p of parts) p.catch(() => {}); // awaited in order as the audio plays
    return { count, parts };
  }

  /** A synthesis's chunks, counted as a job of its engine while they flow; no audio at all is 400 (no paid empty WAV). */
  private async *counted(engine: string, chunks: AsyncIterable<SpeechChunk>): AsyncGenerator<SpeechChunk> {
    this.jobs.set(engine, (this.jobs.get(engine) ?? 0) + 1);
    let samples = 0;
    try {
      for await (const chunk of chunks) {
        samples += chunk.info.samples;
        yield chunk;
      }
      if (samples === 0) throw errors.validation('text contains nothing that can be spoken (its audio is empty)');
    } catch (error) {
      // Anything but a client error already in the table is the engine's failure (the cause is kept for the log).
      throw isSawtError(error) ? error : errors.internal('Speech synthesis failed', error);
    } finally {
      this.jobs.set(engine, this.jobs.get(engine)! - 1);
    }
  }

  /**
   * The parts' audio as one stream: a part's synthesis starts once the previous part's audio is made (never
   * competing with it); `source` names the text word of each spoken word. `urgent`: the first sentences.
   */
  private async *partsAudio(backend: EngineBackend, parts: Array<Promise<unknown[]>>, job: Job, signal: AbortSignal, urgent = true, source?: SourceWords): AsyncGenerator<SpeechChunk> {
    const engine = backend.engine;
    const resampler = backend.sampleRate && backend.sampleRate !== job.sampleRate ? new Resampler(backend.sampleRate, job.sampleRate) : null;
    let base = 0;
    let spoken = 0;
    for (const [i, part] of parts.entries()) {
      const sentences = await part;
      if (signal.aborted) return;
      const final = i === parts.length - 1;
      let last = -1;
      const chunks = timed(backend.synthesize({ ...job, sentences, urgency: urgent && i === 0 ? 'urgent' : 'later', signal }), engine, backend.chunkTimeoutMs ?? CHUNK_TIMEOUT_MS);
      for await (let chunk of chunks) {
        last = chunk.info.segment;
        if (resampler) chunk = resampled(resampler, chunk, job.sampleRate);
        if (source && chunk.info.words.length) {
          chunk = { ...chunk, info: { ...chunk.info, words: source.label(chunk.info.words, spoken) } };
          spoken += chunk.info.words.length;
        }
        yield base === 0 && (final || !chunk.isLast) ? chunk : { ...chunk, isLast: final && chunk.isLast, info: { ...chunk.info, segment: chunk.info.segment + base } };
      }
      base += last + 1;
    }
  }
}

/** `chunk` at `rate` (the resampler's tail joins the last chunk). */
function resampled(resampler: Resampler, chunk: SpeechChunk, rate: number): SpeechChunk {
  const parts = [resampler.process(new Int16Array(chunk.pcm.buffer, chunk.pcm.byteOffset, chunk.pcm.length / 2)), ...(chunk.isLast ? [resampler.flush()] : [])];
  const pcm = Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
  return { pcm, sampleRate: rate, isLast: chunk.isLast, info: { ...chunk.info, samples: pcm.length / 2 } };
}

/**
 * `chunks`, failing with 503 / 50001 when the next one takes longer than `timeoutMs` (the time the
 * consumer holds a chunk is not counted). One timer per stream, re-armed per chunk: a timer and a race
 * per chunk were 3 % of the JavaScript thread's busy time with 8 concurrent streams (bench/latency.js http, profiled).
 */
async function* timed(chunks: AsyncIterable<SpeechChunk>, engine: string, timeoutMs: number): AsyncGenerator<SpeechChunk> {
  const it = chunks[Symbol.asyncIterator]();
  let giveUp: ((error: Error) => void) | null = null;
  const timer = setTimeout(() => giveUp?.(new SawtError('unavailable', `The speech engine '${engine}' sent no audio for ${timeoutMs / 1000} s; try again later`)), timeoutMs);
  try {
    for (;;) {
      timer.refresh();
      const next = await new Promise<IteratorResult<SpeechChunk>>((resolve, reject) => {
        giveUp = reject;
        it.next().then(resolve, reject);
      });
      giveUp = null;
      if (next.done) return;
      yield next.value;
    }
  } finally {
    clearTimeout(timer);
  }
}
