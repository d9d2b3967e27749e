/**
 * Voice cloning: a reference recording becomes a versioned profile; speech is the closest base voice
 * of the model (else the default model's) moved toward it, at the parameter level for an HTS base
 * (hts/voice-mapping.ts), as audio otherwise (conversion-stream.ts). Maths: profile-math.ts; storage: store.ts.
 */
import { errors, speechAudio, type ClonedVoiceRecord, type PreparedSpeech, type PronunciationDictionaries, type SpeechPreparation, type SpeechStream, type SpeechSynthesizer, type SynthesisRequest, type VoiceCloning, type VoiceProfile } from '@sawt/core';
import { analyzeVoice } from '@sawt/native';
import type { BuiltinVoiceCatalog, VoiceConfig } from '../catalog.js';
import { htsVoiceToward } from '../hts/voice-mapping.js';
import { convertingStream } from './conversion-stream.js';
import { baseSpeed, CLONE_RATE, conversionAt, mapOnto, MIN_VOICED_SECONDS, PROFILE_VERSION, speakerMapping, type AnalyzedBase, type BaseMapping, type StoredProfile } from './profile-math.js';
import { CloneStore, isCloneId } from './store.js';

const BASE_TEXT = 'السلام عليكم ورحمة الله وبركاته. يسعدنا أن نقدم لكم خدمة صوت لتحويل النص العربي إلى كلام واضح، ويمكنكم اختيار اللهجة والصوت المناسبين لكل تطبيق.';

/** What cloning needs of the synthesizer: synthesis with given voice parameters, and which engine a model runs on. */
export interface BaseSynthesizer {
  synthesizeVoice(req: SynthesisRequest, voice: VoiceConfig): Promise<SpeechStream>;
  /** undefined when the model is not offered. */
  engineOf(modelId: string): string | undefined;
}

interface BaseVoice extends AnalyzedBase {
  voice: VoiceConfig;
}

export interface CloningSettings {
  /** Built-in voices a clone is made from (per model, the closest in log-F0 is chosen). */
  baseVoiceIds: string[];
  defaultModelId: () => string;
}

export class VoiceCloningService implements VoiceCloning {
  /** Analyzed base voices per model. */
  private readonly baseVoices = new Map<string, Promise<BaseVoice[]>>();
  /** Each profile mapped per model it has been spoken with. */
  private readonly mappings = new WeakMap<StoredProfile, Map<string, Promise<BaseMapping>>>();

  constructor(
    private readonly synthesizer: BaseSynthesizer,
    private readonly builtin: BuiltinVoiceCatalog,
    private readonly store: CloneStore,
    private readonly settings: CloningSettings,
  ) {}

  /** The model whose base voices speak for `modelId` (its own when it has any, else the default model's), and those voices. */
  private baseModel(modelId: string): { modelId: string; voices: VoiceConfig[] } {
    const of = (id: string) => this.synthesizer.engineOf(id) === undefined ? [] : this.settings.baseVoiceIds
      .map((v) => this.builtin.config(v))
      .filter((v): v is VoiceConfig => v !== undefined && (this.builtin.modelsFor(v.voice_id) ?? []).includes(id));
    const own = of(modelId);
    if (own.length) return { modelId, voices: own };
    const fallback = this.settings.defaultModelId();
    const voices = of(fallback);
    if (!voices.length) throw errors.internal(`voice cloning has no base voice for model '${modelId}' nor for the default model`);
    return { modelId: fallback, voices };
  }

  private bases(modelId: string): Promise<BaseVoice[]> {
    const { modelId: model, voices } = this.baseModel(modelId);
    let p = this.baseVoices.get(model);
    if (!p) {
      p = Promise.all(voices.map(async (voice) => {
        const stream = await this.synthesizer.synthesizeVoice({ modelId: model, voiceId: voice.voice_id, accountId: '', text: BASE_TEXT, speed: 1, stability: 0.5, sampleRate: CLONE_RATE }, voice);
        return { voice, voiceId: voice.voice_id, modelId: model, analysis: await analyzeVoice(await speechAudio(stream), CLONE_RATE) };
      }));
      this.baseVoices.set(model, p);
      p.catch(() => this.baseVoices.delete(model));
    }
    return p;
  }

  /** `profile` mapped onto the base voices that speak for `modelId` (computed once per profile and model). */
  mappingFor(profile: StoredProfile, modelId: string): Promise<BaseMapping> {
    let perModel = this.mappings.get(profile);
    if (!perModel) this.mappings.set(profile, (perModel = new Map()));
    let m = perModel.get(modelId);
    if (!m) {
      m = this.bases(modelId).then((bases) => mapOnto(profile.reference, bases));
      perModel.set(modelId, m);
      m.catch(() => perModel.delete(modelId));
    }
    return m;
  }

  async analyze(pcm: Buffer): Promise<StoredProfile> {
    const ref = await analyzeVoice(pcm, CLONE_RATE);
    if (ref.voicedSeconds < MIN_VOICED_SECONDS) {
      throw errors.validation(`The audio holds too little speech: ${ref.voicedSeconds.toFixed(2)} s of voiced speech found, at least ${MIN_VOICED_SECONDS} s are needed`);
    }
    const { sampleRate: _sr, ...reference } = ref;
    const onDefault = mapOnto(reference, await this.bases(this.settings.defaultModelId()));
    return { version: PROFILE_VERSION, kind: 'sawt-voice-profile', sampleRate: CLONE_RATE, reference, ...onDefault };
  }

  /** Base-voice speech moved toward `profile`: inside the engine for an HTS base, as audio otherwise. */
  async speak(profile: StoredProfile, req: SynthesisRequest, similarity: number, failure: () => Error): Promise<SpeechStream> {
    const mapped = await this.mappingFor(profile, req.modelId);
    const { base } = mapped;
    const voice = this.builtin.config(base.voiceId);
    if (!voice) throw errors.internal(`the base voice '${base.voiceId}' of a cloned voice is no longer configured`);
    const modelId = base.modelId ?? req.modelId;
    const { params, speedFactor, f0 } = conversionAt({ ...mapped, reference: profile.reference }, similarity);
    const outRate = req.sampleRate ?? CLONE_RATE;
    const baseReq = { ...req, modelId, voiceId: base.voiceId, speed: baseSpeed(req.speed, speedFactor) };
    if (voice.hts && this.synthesizer.engineOf(modelId) === 'hts') {
      const baseLtasDb = (await this.bases(req.modelId)).find((b) => b.voice.voice_id === base.voiceId)?.analysis.ltasDb;
      const hts = htsVoiceToward(voice.hts, speakerMapping(profile.reference, mapped, baseLtasDb), similarity);
      return this.synthesizer.synthesizeVoice({ ...baseReq, sampleRate: outRate }, { ...voice, hts });
    }
    const src = await this.synthesizer.synthesizeVoice({ ...baseReq, sampleRate: similarity > 0 ? CLONE_RATE : outRate }, voice);
    if (similarity <= 0) return src;
    return convertingStream(src, params, f0, outRate, failure);
  }

  async preview(input: { profile: VoiceProfile; modelId: string; accountId: string; text: string; speed: number; similarity: number; requestId?: string }): Promise<SpeechStream> {
    return this.speak(input.profile as StoredProfile, {
      modelId: input.modelId, voiceId: (input.profile as StoredProfile).base.voiceId, accountId: input.accountId, text: input.text,
      speed: input.speed, stability: 0.5, sampleRate: CLONE_RATE, requestId: input.requestId,
    }, input.similarity, () => errors.internal('Failed to generate voice preview'));
  }

  rememberPreview(input: { accountId: string; referenceSha256: string; similarity: number; speed: number }): Promise<void> {
    return this.store.rememberPreview(input);
  }

  async create(input: Parameters<VoiceCloning['create']>[0]): Promise<ClonedVoiceRecord> {
    // Stored with the reference mapped onto the base voice of the clone's own model.
    const analyzed = input.profile as StoredProfile;
    return this.store.create({ ...input, profile: { ...analyzed, ...(await this.mappingFor(analyzed, input.modelId)) } });
  }

  isCloneId(voiceId: string): boolean {
    return isCloneId(voiceId);
  }

  list(accountId?: string): Promise<Array<ClonedVoiceRecord & { account_id: string; created_at: string }>> {
    return this.store.list(accountId);
  }

  count(accountId: string): Promise<number> {
    return this.store.count(accountId);
  }

  delete(voiceId: string, accountId?: string): Promise<boolean> {
    return this.store.delete(voiceId, accountId);
  }

  sampleWav(voiceId: string, accountId?: string): Promise<Buffer | null> {
    return this.store.sampleWav(voiceId, accountId);
  }

  /** Synthesis with a cloned voice, or null when `req.voiceId` is none of the account's clones. */
  async synthesizeClone(req: SynthesisRequest): Promise<SpeechStream | null> {
    const row = await this.store.row(req.voiceId, req.accountId);
    if (!row) return null;
    const profile = await this.store.profile(row);
    return this.speak(profile, req, row.similarity, () => errors.internal('Speech synthesis failed'));
  }
}

/** The synthesizer of built-in voices with an account's cloned voices in front of it. */
export class CloningSynthesizer implements SpeechSynthesizer {
  constructor(/** The synthesizer this one decorates (built-in voices). */ readonly inner: SpeechSynthesizer, private readonly cloning: VoiceCloningService) {}

  async synthesize(req: SynthesisRequest): Promise<SpeechStream> {
    if (req.accountId) {
      const cloned = await this.cloning.synthesizeClone(req);
      if (cloned) return cloned;
    }
    return this.inner.synthesize(req);
  }

  /** A cloned voice speaks on its base's model: the text is prepared for the model as any. */
  prepare(req: SpeechPreparation): Promise<PreparedSpeech> {
    if (!this.inner.prepare) throw new Error('the engine\'s synthesizer prepares no text');
    return this.inner.prepare(req);
  }

  usePronunciationDictionaries(dictionaries: PronunciationDictionaries): void {
    this.inner.usePronunciationDictionaries?.(dictionaries);
  }
}
