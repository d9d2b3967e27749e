import { errors } from './errors.js';
import { billableChars, isSsmlText, meetsTextMinimum, TEXT_TOO_SHORT_MESSAGE } from './text-rules.js';
import { observable } from './speech-stream.js';
import { nextTurn } from './scheduling.js';
import { DeliveryMeter } from './delivery.js';
import type { SawtError } from './errors.js';
import type { AccountStore, Admission, AdmissionControl, AuthContext, DictionaryLocator, Logger, Metrics, ModelCatalog, ModelInfo, PreparedSpeech, SpeechStream, SpeechSynthesizer, SpeechTextType, VoiceCatalog, VoiceInfo } from './services/index.js';

export interface PaidSynthesisServices {
  models: ModelCatalog;
  voices: VoiceCatalog;
  accounts: AccountStore;
  admission: AdmissionControl;
  synthesizer: SpeechSynthesizer;
  /** Where delivered syntheses are counted and logged (absent: neither). */
  metrics?: Metrics;
  logger?: Logger;
}

export interface PaidSynthesisRequest {
  auth: AuthContext;
  requestId: string;
  modelId: string;
  voiceId: string;
  text: string;
  speed: number;
  stability: number;
  sampleRate?: number;
  /** Ledger description, e.g. "tts http". */
  purpose: string;
  /** Metrics label: 'http' (default), 'ws' or 'preview'. */
  transport?: string;
  /** 'ssml': the text is an SSML document; absent: SSML when it starts with <speak, else plain text. */
  textType?: SpeechTextType;
  /** The request's pronunciation_dictionary_locators (≤ 3; 404 / 40401 for one the account cannot use). */
  dictionaryLocators?: readonly DictionaryLocator[];
  /** Apply the 3-word / 10-character rule to the spoken text; default: unless transport is 'ws' (a WebSocket checks its flushes). */
  textRule?: boolean;
  /** The text already prepared (preparePaidSpeech; e.g. a job's part): billed and synthesized as it is. */
  prepared?: PreparedSpeech;
  /** Work nobody is waiting to hear (a long-form job's part): SynthesisRequest.background. */
  background?: boolean;
  /** When the client asked (performance.now() time base): first-audio latency counts from here (default: now). */
  startedAt?: number;
  /** Starts the audio instead of the synthesizer (e.g. a voice preview); the voice is then not looked up. */
  start?: (model: ModelInfo) => Promise<SpeechStream>;
  /** The longest audio this request may produce (seconds): a longer estimate is refused up front (400 / 40001). */
  maxOutputSeconds?: number;
}

/** 400 / 40001 for a text whose audio would pass the output cap (up front, or a WAV whose audio did). */
export function outputTooLong(maxSeconds: number): SawtError {
  return errors.validation(`The audio for this text would be longer than ${maxSeconds} seconds, the limit per request: send a shorter text (or several requests)`);
}

/** Who cut a synthesis short (the ledger's reason for a partial charge). */
export type CutBy = 'client clear' | 'client disconnected' | 'client not reading' | 'output cap' | 'server shutdown';

/** The admission of a started paid synthesis. */
export interface PaidAdmission extends Admission {
  /** Closes a synthesis cut short: charges the characters whose audio went out (whole words), or releases. */
  settleCut(deliveredSamples: number, cutBy: CutBy): Promise<void>;
}

/** Checks a model exists, is offered and is enabled for the account: 40401 / 40301. */
export async function resolveModelFor(services: Pick<PaidSynthesisServices, 'models' | 'accounts'>, auth: AuthContext, modelId: string): Promise<ModelInfo> {
  const model = services.models.get(modelId);
  if (!model || !model.available) throw errors.modelNotFound(modelId);
  if (model.access === 'granted' && !(await services.accounts.hasModelGrant(auth.account.id, model.model_id))) {
    throw errors.modelAccess(model.model_id);
  }
  return model;
}

/** Checks the voice exists for the account and speaks on `model` (40401s); a cloned voice is left to the engine. */
export async function resolveVoiceFor(services: Pick<PaidSynthesisServices, 'voices'>, auth: AuthContext, voiceId: string, model: ModelInfo): Promise<VoiceInfo> {
  const voice = await services.voices.get(voiceId, auth.account.id);
  if (!voice) throw errors.voiceNotFound(voiceId);
  if (voice.models && !voice.models.includes(model.model_id)) {
    const own = (await services.voices.list(auth.account.id)).filter((v) => !v.models || v.models.includes(model.model_id));
    throw errors.voiceNotOnModel(voiceId, model.model_id, own.map((v) => v.voice_id));
  }
  return voice;
}

/** What preparePaidSpeech reads of a request. */
export type PaidSpeechText = Pick<PaidSynthesisRequest, 'auth' | 'modelId' | 'text' | 'textType' | 'dictionaryLocators' | 'speed' | 'textRule' | 'transport'>;

/** The request's text made ready, no money taken; without SpeechSynthesizer.prepare, SSML and locators are a 400. */
export async function preparePaidSpeech(services: Pick<PaidSynthesisServices, 'models' | 'accounts' | 'synthesizer'>, req: PaidSpeechText, model?: ModelInfo): Promise<{ model: ModelInfo; prepared: PreparedSpeech }> {
  const resolved = model ?? (await resolveModelFor(services, req.auth, req.modelId));
  const textRule = req.textRule ?? req.transport !== 'ws';
  if (services.synthesizer.prepare) {
    const prepared = await services.synthesizer.prepare({
      modelId: resolved.model_id, model: resolved, accountId: req.auth.account.id, text: req.text, speed: req.speed, textRule,
      ...(req.textType && { textType: req.textType }),
      ...(req.dictionaryLocators && { dictionaryLocators: req.dictionaryLocators }),
    });
    return { model: resolved, prepared };
  }
  if (isSsmlText(req.text, req.textType)) throw errors.validation(`SSML is not supported by this server's speech engine (model ${resolved.model_id})`);
  if (req.dictionaryLocators?.length) throw errors.validation('pronunciation_dictionary_locators are not supported by this server\'s speech engine');
  if (textRule && !meetsTextMinimum(req.text)) throw errors.validation(TEXT_TOO_SHORT_MESSAGE);
  return { model: resolved, prepared: { billableText: req.text.trim(), steps: [], markup: 'plain' } };
}

/**
 * The one path from an authenticated request to audio: model, voice, text, admission, then the stream.
 * The caller settles the admission once the audio reached the client and releases it on any failure.
 */
export async function startPaidSynthesis(services: PaidSynthesisServices, req: PaidSynthesisRequest): Promise<{ stream: SpeechStream; admission: PaidAdmission; model: ModelInfo; chars: number; billableText: string }> {
  const model = await resolveModelFor(services, req.auth, req.modelId);
  const voice = req.start ? undefined : await resolveVoiceFor(services, req.auth, req.voiceId, model);
  // A preview (req.start) speaks a text of its own: billed as written.
  const prepared = req.prepared ?? (req.start ? { billableText: req.text.trim(), steps: [], markup: 'plain' as const } : (await preparePaidSpeech(services, req, model)).prepared);
  const billableText = prepared.billableText;
  const chars = billableChars(billableText);
  // The estimate: the spoken characters at the model's measured pace, and the pauses asked for (SSML <break>).
  const pauseSeconds = prepared.steps.reduce((sum, step) => sum + (step.kind === 'pause' ? step.ms / 1000 : 0), 0);
  if (req.maxOutputSeconds !== undefined && model.secondsPerChar && (chars * model.secondsPerChar) / (req.speed > 0 ? req.speed : 1) + pauseSeconds > req.maxOutputSeconds) {
    throw outputTooLong(req.maxOutputSeconds);
  }
  const admitting = services.admission.admit({
    auth: req.auth,
    requestId: req.requestId,
    chars,
    costMicro: chars * model.costPerCharMicro,
    description: `${req.purpose}: ${chars} chars with ${model.model_id}`,
  });
  // The synthesis (text front end, first audio) starts while the wallet reservation is on its way,
  // unless the admission was refused in memory (concurrency) within a turn of the event loop: a flood
  // of refused requests never reaches the engine. Nothing is sent before the admission is granted;
  // a refused one destroys the stream, and its error wins over the synthesis's.
  const watch = new SynthesisWatch(new DeliveryMeter(billableText, req.sampleRate ?? 24000, model.secondsPerChar ?? null));
  const synthesis = req.start ? null : startUnlessRefused(admitting, async () => watch.attach(await services.synthesizer.synthesize({
    modelId: model.model_id,
    voiceId: req.voiceId,
    accountId: req.auth.account.id,
    text: prepared.steps.length ? billableText : req.text,
    ...(prepared.steps.length && { steps: prepared.steps }),
    ...(req.background && { background: true }),
    speed: req.speed,
    stability: req.stability,
    sampleRate: req.sampleRate,
    requestId: req.requestId,
    model,
    voice,
  })));
  synthesis?.catch(() => {}); // awaited below, once the admission is known
  let admission: Admission;
  try {
    admission = await admitting;
  } catch (e) {
    void synthesis?.then((s) => s?.destroy(), () => {});
    throw e;
  }
  try {
    const stream = req.start ? watch.attach(await req.start(model)) : (await synthesis)!;
    return { stream, admission: observed(services, req, watch, { admission, model, chars }), model, chars, billableText };
  } catch (e) {
    await admission.release(`synthesis failed to start: ${(e as Error).message}`);
    throw e;
  }
}

/** What the paid path watches of a synthesis from the moment its stream exists: samples, first chunk, end. */
class SynthesisWatch {
  readonly startedAt = performance.now();
  samples = 0;
  firstChunkAt = -1;
  endAt = -1;
  onFirstChunk: (() => void) | null = null;

  constructor(readonly meter: DeliveryMeter) {}

  /** `stream` as the caller gets it, watched as its chunks go by (it may hold chunks already). */
  attach(stream: SpeechStream): SpeechStream {
    const watched = observable(stream).observe(({ info }) => {
      this.meter.add(info);
      if (info.samples > 0 && this.firstChunkAt < 0) {
        this.firstChunkAt = performance.now();
        this.onFirstChunk?.();
      }
      this.samples += info.samples;
    });
    watched.once('end', () => (this.endAt = performance.now()));
    return watched;
  }
}

/** The admission, observed: first-audio latency, and at settle the real-time factor and "synthesis delivered" log. */
function observed(services: PaidSynthesisServices, req: PaidSynthesisRequest, watch: SynthesisWatch, run: { admission: Admission; model: ModelInfo; chars: number }): PaidAdmission {
  const { metrics, logger } = services;
  const transport = req.transport ?? 'http';
  const model = run.model.model_id;
  const rate = req.sampleRate ?? 24000;
  const askedAt = req.startedAt ?? watch.startedAt;
  let firstAt = -1;
  const first = () => {
    firstAt = performance.now();
    metrics?.observeFirstAudio(model, transport, (firstAt - askedAt) / 1000);
  };
  if (watch.firstChunkAt >= 0) first();
  else watch.onFirstChunk = first;
  const admission = run.admission;
  let recorded = false;
  const paid: PaidAdmission = {
    get requestId() {
      return admission.requestId;
    },
    get costMicro() {
      return admission.costMicro;
    },
    async settle(costMicro?: number, note?: string) {
      await admission.settle(costMicro, note);
      if (recorded || (!metrics && !logger)) return;
      recorded = true;
      const now = performance.now();
      const audioSeconds = watch.samples / rate;
      metrics?.observeSynthesis({ model, transport, chars: run.chars, audioSeconds, elapsedSeconds: ((watch.endAt >= 0 ? watch.endAt : now) - watch.startedAt) / 1000 });
      logger?.info({
        requestId: req.requestId, accountId: req.auth.account.id, keyId: req.auth.key.id, model, voice: req.voiceId, transport,
        chars: run.chars, audioSeconds: Math.round(audioSeconds * 1000) / 1000, firstAudioMs: firstAt >= 0 ? Math.round(firstAt - askedAt) : null, ms: Math.round(now - askedAt),
      }, 'synthesis delivered');
    },
    release: (reason: string) => admission.release(reason),
    freeSlot: () => admission.freeSlot(),
    async settleCut(deliveredSamples: number, cutBy: CutBy) {
      const chars = Math.min(watch.meter.charsFor(deliveredSamples), run.chars);
      const seconds = Math.round((deliveredSamples / rate) * 10) / 10;
      if (chars === 0) return admission.release(`${cutBy} before any audio was delivered`);
      const note = `${cutBy} after ${seconds} s of audio: ${chars} of ${run.chars} characters delivered`;
      return paid.settle(chars >= run.chars ? undefined : chars * run.model.costPerCharMicro, note);
    },
  };
  return paid;
}

/** Runs `start` after one turn unless `admitting` was refused by then; an engine failure stays on the stream until read. */
async function startUnlessRefused(admitting: Promise<unknown>, start: () => Promise<SpeechStream>): Promise<SpeechStream | null> {
  let refused = false;
  admitting.catch(() => (refused = true));
  await nextTurn();
  if (refused) return null;
  const stream = await start();
  stream.on('error', () => {});
  return stream;
}
