/**
 * Voice cloning: a reference recording is analyzed (native: VAD, F0, LTAS,
 * MFCCs, syllable rate) into a versioned profile. Speech is made by the base
 * voice closest in log-F0 among the base voices of the requested model and moved
 * toward the reference speaker:
 *  - an HTS base (sawt-hts) is moved at the parameter level, inside the engine
 *    (hts/voice-mapping.ts: log-F0 shift and spread, all-pass warping for the
 *    vocal-tract length, a mel-cepstral EQ), so the voice keeps its quality;
 *  - another base (sawt-mini) is converted as audio (native: LPC analysis-synthesis
 *    with TD-PSOLA F0 mapping, VTL frequency warping and a smooth EQ), segment by
 *    segment as it is synthesized, the F0 mapping calibrated on the log-F0 median
 *    and spread of the base speech converted so far.
 * A model without base voices of its own uses the default model's. Cloned voices
 * live in the database (owner, fields) and blob storage (profile.json, reference,
 * sample.wav).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import {
  encodeWav, errors, speechAudio, SPEECH_STREAM_OPTIONS, type BlobStore, type ChunkInfo, type ClonedVoiceRecord, type Database, type Logger, type Migration,
  type SpeechChunk, type SpeechStream, type SynthesisRequest, type VoiceCatalog, type VoiceCloning, type VoiceInfo, type VoiceProfile,
} from '@sawt/core';
import { samplePath, type BuiltinVoiceCatalog, type VoiceConfig } from './catalog.js';
import { htsVoiceToward } from './hts/voice-mapping.js';
import { analyzeVoice, convertVoice, matchSpectra, Resampler, trackF0, type ConvertParams, type VoiceAnalysis } from '@sawt/native';

export const PROFILE_VERSION = 1;
export const CLONE_RATE = 24000;
/** Least voiced speech (seconds with an F0) a reference must hold. */
export const MIN_VOICED_SECONDS = 2;
const BASE_TEXT = 'السلام عليكم ورحمة الله وبركاته. يسعدنا أن نقدم لكم خدمة صوت لتحويل النص العربي إلى كلام واضح، ويمكنكم اختيار اللهجة والصوت المناسبين لكل تطبيق.';

export const cloningMigrations: Migration[] = [
  {
    name: '001-cloned-voices',
    async up(knex) {
      await knex.schema.createTable('cloned_voices', (t) => {
        t.string('id', 36).primary();
        t.string('voice_id', 64).notNullable().unique();
        t.string('account_id', 36).notNullable().index();
        t.string('name', 200).notNullable();
        t.text('description').nullable();
        t.string('gender', 40).nullable();
        t.string('age', 40).nullable();
        t.text('languages').notNullable();
        t.text('dialect').notNullable();
        t.string('type', 40).nullable();
        t.text('avatar_url').nullable();
        t.double('stability').notNullable();
        t.double('similarity').notNullable();
        t.double('speed').notNullable();
        t.string('model_id', 100).notNullable();
        t.string('base_voice_id', 100).notNullable();
        t.text('text').notNullable();
        t.string('profile_key', 200).notNullable();
        t.string('reference_key', 200).notNullable();
        t.string('sample_key', 200).notNullable();
        t.string('created_at', 30).notNullable();
      });
      await knex.schema.createTable('voice_previews', (t) => {
        t.string('id', 36).primary();
        t.string('account_id', 36).notNullable();
        t.string('reference_sha256', 64).notNullable();
        t.double('similarity').notNullable();
        t.double('speed').notNullable();
        t.string('created_at', 30).notNullable();
        t.index(['account_id', 'reference_sha256']);
      });
    },
  },
];

interface ClonedRow {
  id: string; voice_id: string; account_id: string; name: string; description: string | null; gender: string | null; age: string | null;
  languages: string; dialect: string; type: string | null; avatar_url: string | null; stability: number; similarity: number; speed: number;
  model_id: string; base_voice_id: string; text: string; profile_key: string; reference_key: string; sample_key: string; created_at: string;
}

/** What the profile JSON holds (version 1). */
export interface StoredProfile extends VoiceProfile {
  version: number;
  kind: 'sawt-voice-profile';
  sampleRate: number;
  reference: Omit<VoiceAnalysis, 'sampleRate'>;
  /** The reference mapped onto a base voice of the default model (informative: speech maps it per model, see `BaseMapping`). */
  base: BaseMapping['base'];
  mapping: BaseMapping['mapping'];
}

/** The reference mapped onto one base voice. */
export interface BaseMapping {
  /** The model the base voice is synthesized with (absent in profiles written before it was recorded). */
  base: { voiceId: string; modelId?: string; f0Median: number; logF0Mean: number; logF0Std: number; syllableRate: number };
  mapping: { warp: number; eqDb: number[]; rateRatio: number; spectralDistanceBefore: number; spectralDistanceAfter: number };
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** Where a speaker's log F0 centres: the log of its median F0, or the log-F0 mean when no median was measured. */
const logF0Center = (a: { f0Median: number; logF0Mean: number }) => (a.f0Median > 0 ? Math.log(a.f0Median) : a.logF0Mean);

/** Where the F0 of converted speech goes: the reference's log-F0 median and spread, reached at similarity 1. */
export interface F0Target {
  similarity: number;
  refLogF0Center: number;
  refLogF0Std: number;
}

/**
 * Conversion settings at a similarity (0: the base voice unchanged, 1: the full mapping).
 * The F0 part of `params` uses the base voice's statistics from the profile (measured on
 * another text); convertingStream recalibrates it on the speech it converts (see calibrate).
 */
export function conversionAt(profile: Pick<StoredProfile, 'reference'> & BaseMapping, similarity: number): { params: ConvertParams; speedFactor: number; f0: F0Target } {
  const s = clamp(similarity, 0, 1);
  const { base, reference: ref, mapping } = profile;
  const f0: F0Target = { similarity: s, refLogF0Center: logF0Center(ref), refLogF0Std: ref.logF0Std };
  const baseCenter = logF0Center(base);
  return {
    params: { ...f0Mapping(baseCenter, base.logF0Std, f0), warp: Math.pow(mapping.warp, s), eqDb: mapping.eqDb.map((d) => d * s) },
    speedFactor: Math.pow(mapping.rateRatio, s),
    f0,
  };
}

/** The log-F0 mapping from base speech of median `center` and spread `std` toward `t`. */
export function f0Mapping(center: number, std: number, t: F0Target): Pick<ConvertParams, 'srcLogF0Mean' | 'srcLogF0Std' | 'dstLogF0Mean' | 'dstLogF0Std'> {
  const srcStd = Math.max(0.01, std);
  return {
    srcLogF0Mean: center,
    srcLogF0Std: srcStd,
    dstLogF0Mean: center + t.similarity * (t.refLogF0Center - center),
    dstLogF0Std: srcStd * Math.pow(clamp(Math.max(0.01, t.refLogF0Std) / srcStd, 0.5, 2), t.similarity),
  };
}

/** Least voiced frames (10 ms) measured before the converted speech's own F0 statistics are used. */
const MIN_CALIBRATION_FRAMES = 30;
/** Voiced frames kept for the running statistics (the latest 60 s). */
const MAX_CALIBRATION_FRAMES = 6000;

/**
 * Log-F0 statistics of the base speech converted so far (median and spread with the
 * outer 5% dropped, as in the reference's analysis), so that the F0 mapping is calibrated
 * on the very speech being converted rather than on the profile's base sample.
 */
export class RunningF0 {
  private logs: number[] = [];

  add(track: ArrayLike<number>): void {
    for (let i = 0; i < track.length; i++) if (track[i] > 0) this.logs.push(Math.log(track[i]));
    if (this.logs.length > MAX_CALIBRATION_FRAMES) this.logs.splice(0, this.logs.length - MAX_CALIBRATION_FRAMES);
  }

  stats(): { center: number; std: number; frames: number } | null {
    const n = this.logs.length;
    if (n < MIN_CALIBRATION_FRAMES) return null;
    const s = [...this.logs].sort((a, b) => a - b);
    const lo = Math.floor(n / 20), hi = n - Math.floor(n / 20);
    let sum = 0;
    for (let i = lo; i < hi; i++) sum += s[i];
    const mean = sum / (hi - lo);
    let sq = 0;
    for (let i = lo; i < hi; i++) sq += (s[i] - mean) ** 2;
    return { center: s[Math.floor(n / 2)], std: Math.sqrt(sq / (hi - lo)), frames: n };
  }
}

/** `params` with its F0 mapping calibrated on the statistics of the speech converted so far. */
export function calibrate(params: ConvertParams, target: F0Target, running: RunningF0): ConvertParams {
  const st = running.stats();
  return st ? { ...params, ...f0Mapping(st.center, st.std, target) } : params;
}

/**
 * Converts a base-voice stream (PCM16 at CLONE_RATE) segment by segment: each
 * segment's audio is collected, converted off the main thread, resampled to
 * `outRate` and pushed as one chunk (word timings kept).
 */
export function convertingStream(src: SpeechStream, params: ConvertParams, f0Target: F0Target, outRate: number, failure: () => Error): SpeechStream {
  const running = new RunningF0();
  /** One segment converted, its F0 mapping calibrated on the base speech so far (this segment included). */
  const convert = async (pcm: Buffer): Promise<Buffer> => {
    const f0 = await trackF0(pcm, CLONE_RATE);
    running.add(f0);
    return convertVoice(pcm, CLONE_RATE, { ...calibrate(params, f0Target, running), f0 });
  };
  const resampler = outRate === CLONE_RATE ? null : new Resampler(CLONE_RATE, outRate);
  let wake: (() => void) | null = null;
  let started = false;
  const out: SpeechStream = new Readable({
    ...SPEECH_STREAM_OPTIONS,
    read() {
      if (!started) {
        started = true;
        pump().catch((e) => out.destroy(e instanceof Error && (e as { code?: unknown }).code === 40001 ? e : failure()));
      }
      const w = wake;
      wake = null;
      w?.();
    },
    destroy(err, cb) {
      src.destroy();
      cb(err);
    },
  });
  const push = async (pcm: Buffer, info: Omit<ChunkInfo, 'samples'>) => {
    if (!out.push({ pcm, info: { ...info, samples: pcm.length / 2 } } satisfies SpeechChunk)) await new Promise<void>((r) => (wake = r));
  };
  async function pump(): Promise<void> {
    let parts: Buffer[] = [];
    let words: ChunkInfo['words'] = [];
    let samples = 0;
    let segment = 0;
    /** Converts the collected segment, resamples it and pushes it as one chunk; false once `out` is gone. */
    const flush = async (): Promise<boolean> => {
      let pcm = await convert(Buffer.concat(parts));
      if (out.destroyed) return false;
      if (resampler) {
        const r = resampler.process(new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2));
        pcm = Buffer.from(r.buffer, r.byteOffset, r.byteLength);
      }
      await push(pcm, { segment, segmentEnd: true, words });
      parts = [];
      words = [];
      samples = 0;
      return true;
    };
    for await (const { pcm, info } of src as AsyncIterable<SpeechChunk>) {
      for (const w of info.words) words.push({ ...w, audioMs: w.audioMs + (samples / CLONE_RATE) * 1000 });
      parts.push(pcm);
      samples += pcm.length / 2;
      segment = info.segment;
      if (info.segmentEnd && !(await flush())) return;
    }
    if (parts.length && !(await flush())) return;
    if (resampler) {
      const t = resampler.flush();
      if (t.length) await push(Buffer.from(t.buffer, t.byteOffset, t.byteLength), { segment, segmentEnd: true, words: [] });
    }
    out.push(null);
  }
  return out;
}

/** What cloning needs of the synthesizer: synthesis with given voice parameters, and which engine a model runs on. */
export interface BaseSynthesizer {
  synthesizeVoice(req: SynthesisRequest, voice: VoiceConfig): Promise<SpeechStream>;
  /** undefined when the model is not offered. */
  engineOf(modelId: string): string | undefined;
}

interface BaseVoice {
  voice: VoiceConfig;
  modelId: string;
  analysis: VoiceAnalysis;
}

/** The reference `ref` mapped onto the base voice closest to it in log-F0. */
function mapOnto(ref: Omit<VoiceAnalysis, 'sampleRate'>, bases: BaseVoice[]): BaseMapping {
  const base = bases.reduce((a, b) => (Math.abs(b.analysis.logF0Mean - ref.logF0Mean) < Math.abs(a.analysis.logF0Mean - ref.logF0Mean) ? b : a));
  const m = matchSpectra(ref.ltasDb, base.analysis.ltasDb, CLONE_RATE);
  const b = base.analysis;
  return {
    base: { voiceId: base.voice.voice_id, modelId: base.modelId, f0Median: b.f0Median, logF0Mean: b.logF0Mean, logF0Std: b.logF0Std, syllableRate: b.syllableRate },
    mapping: {
      warp: m.warp,
      eqDb: m.eqDb.map((d) => Math.round(d * 100) / 100),
      rateRatio: b.syllableRate > 0 && ref.syllableRate > 0 ? clamp(ref.syllableRate / b.syllableRate, 0.75, 1.3) : 1,
      spectralDistanceBefore: m.distanceBefore,
      spectralDistanceAfter: m.distanceAfter,
    },
  };
}

export class VoiceCloningService implements VoiceCloning {
  private readonly profiles = new Map<string, Promise<StoredProfile>>();
  /** Analyzed base voices per model. */
  private readonly baseVoices = new Map<string, Promise<BaseVoice[]>>();
  /** Each profile mapped per model it has been spoken with. */
  private readonly mappings = new WeakMap<StoredProfile, Map<string, Promise<BaseMapping>>>();
  private synthesizer: BaseSynthesizer | null = null;

  constructor(
    private readonly db: Database,
    private readonly blobs: BlobStore,
    private readonly builtin: BuiltinVoiceCatalog,
    private readonly baseVoiceIds: string[],
    private readonly defaultModelId: () => string,
    private readonly logger: Logger,
  ) {}

  /** The synthesizer of base voices (set once the synthesizer exists). */
  attach(synthesizer: BaseSynthesizer): void {
    this.synthesizer = synthesizer;
  }

  /** The model whose base voices speak for `modelId` (its own when it has any, else the default model's), and those voices. */
  private baseModel(modelId: string): { modelId: string; voices: VoiceConfig[] } {
    const of = (id: string) => this.synthesizer?.engineOf(id) === undefined ? [] : this.baseVoiceIds
      .map((v) => this.builtin.config(v))
      .filter((v): v is VoiceConfig => v !== undefined && (!v.models || v.models.includes(id)));
    const own = of(modelId);
    if (own.length) return { modelId, voices: own };
    const fallback = this.defaultModelId();
    const voices = of(fallback);
    if (!voices.length) throw errors.internal(`voice cloning has no base voice for model '${modelId}' nor for the default model`);
    return { modelId: fallback, voices };
  }

  private bases(modelId: string): Promise<BaseVoice[]> {
    const { modelId: model, voices } = this.baseModel(modelId);
    let p = this.baseVoices.get(model);
    if (!p) {
      p = Promise.all(voices.map(async (voice) => {
        const stream = await this.synthesizer!.synthesizeVoice({ modelId: model, voiceId: voice.voice_id, accountId: '', text: BASE_TEXT, speed: 1, stability: 0.5, sampleRate: CLONE_RATE }, voice);
        return { voice, modelId: model, analysis: await analyzeVoice(await speechAudio(stream), CLONE_RATE) };
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
    if (!this.synthesizer) throw errors.internal('voice cloning is not ready');
    const ref = await analyzeVoice(pcm, CLONE_RATE);
    if (ref.voicedSeconds < MIN_VOICED_SECONDS) {
      throw errors.validation(`The audio holds too little speech: ${ref.voicedSeconds.toFixed(2)} s of voiced speech found, at least ${MIN_VOICED_SECONDS} s are needed`);
    }
    const { sampleRate: _sr, ...reference } = ref;
    const onDefault = mapOnto(reference, await this.bases(this.defaultModelId()));
    return { version: PROFILE_VERSION, kind: 'sawt-voice-profile', sampleRate: CLONE_RATE, reference, ...onDefault };
  }

  /** Base-voice speech moved toward `profile`: inside the engine for an HTS base, as audio otherwise. */
  async speak(profile: StoredProfile, req: SynthesisRequest, similarity: number, failure: () => Error): Promise<SpeechStream> {
    if (!this.synthesizer) throw errors.internal('voice cloning is not ready');
    const mapped = await this.mappingFor(profile, req.modelId);
    const { base, mapping } = mapped;
    const voice = this.builtin.config(base.voiceId);
    if (!voice) throw errors.internal(`the base voice '${base.voiceId}' of a cloned voice is no longer configured`);
    const modelId = base.modelId ?? req.modelId;
    const { params, speedFactor, f0 } = conversionAt({ ...mapped, reference: profile.reference }, similarity);
    const outRate = req.sampleRate ?? CLONE_RATE;
    const baseReq = { ...req, modelId, voiceId: base.voiceId, speed: clamp(req.speed * speedFactor, 0.5, 1.6) };
    if (voice.hts && this.synthesizer.engineOf(modelId) === 'hts') {
      const r = profile.reference;
      const baseLtasDb = (await this.bases(req.modelId)).find((b) => b.voice.voice_id === base.voiceId)?.analysis.ltasDb;
      const hts = htsVoiceToward(voice.hts, {
        baseLogF0Center: logF0Center(base), baseLogF0Mean: base.logF0Mean, baseLogF0Std: base.logF0Std,
        refLogF0Center: logF0Center(r), refLogF0Std: r.logF0Std,
        warp: mapping.warp, eqDb: mapping.eqDb, eqRate: CLONE_RATE, baseLtasDb,
      }, similarity);
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

  async rememberPreview(input: { accountId: string; referenceSha256: string; similarity: number; speed: number }): Promise<void> {
    await this.db.knex('voice_previews').insert({
      id: randomUUID(), account_id: input.accountId, reference_sha256: input.referenceSha256, similarity: input.similarity, speed: input.speed, created_at: new Date().toISOString(),
    });
  }

  async create(input: Parameters<VoiceCloning['create']>[0]): Promise<ClonedVoiceRecord> {
    const voiceId = `cv_${randomBytes(12).toString('hex')}`;
    const prefix = `voices/${voiceId}`;
    const last = await this.db.knex('voice_previews').where({ account_id: input.accountId, reference_sha256: input.referenceSha256 }).orderBy('created_at', 'desc').first() as { similarity: number; speed: number } | undefined;
    // Stored with the reference mapped onto the base voice of the clone's own model.
    const analyzed = input.profile as StoredProfile;
    const profile: StoredProfile = { ...analyzed, ...(await this.mappingFor(analyzed, input.modelId)) };
    const keys = { profile: `${prefix}/profile.json`, reference: `${prefix}/reference.wav`, sample: `${prefix}/sample.wav` };
    try {
      await this.blobs.put(keys.profile, Buffer.from(JSON.stringify(profile)));
      // Streamed from the file (the caller's transcoded, length-capped copy), never read whole.
      await this.blobs.put(keys.reference, createReadStream(input.referenceFile));
      await this.blobs.put(keys.sample, encodeWav([input.samplePcm], CLONE_RATE));
    } catch (e) {
      this.logger.error({ err: e, voiceId }, 'clone: storing the voice files failed');
      await Promise.all(Object.values(keys).map((k) => this.blobs.delete(k).catch(() => {})));
      throw errors.internal('Failed to upload voice file', e);
    }
    const row: ClonedRow = {
      id: randomUUID(), voice_id: voiceId, account_id: input.accountId, name: input.name, description: input.description, gender: input.gender, age: input.age,
      languages: JSON.stringify(input.languages), dialect: JSON.stringify(input.dialect), type: null, avatar_url: input.avatarUrl,
      stability: input.stability, similarity: last?.similarity ?? 0.75, speed: last?.speed ?? 1, model_id: input.modelId, base_voice_id: profile.base.voiceId,
      text: input.text, profile_key: keys.profile, reference_key: keys.reference, sample_key: keys.sample, created_at: new Date().toISOString(),
    };
    await this.db.knex('cloned_voices').insert(row);
    this.profiles.set(voiceId, Promise.resolve(profile));
    return toRecord(row);
  }

  isCloneId(voiceId: string): boolean {
    return voiceId.startsWith('cv_');
  }

  async list(accountId?: string): Promise<Array<ClonedVoiceRecord & { account_id: string; created_at: string }>> {
    const q = this.db.knex('cloned_voices').orderBy('created_at');
    const rows = (accountId === undefined ? await q : await q.where({ account_id: accountId })) as ClonedRow[];
    return rows.map((r) => ({ ...toRecord(r), account_id: r.account_id, created_at: r.created_at }));
  }

  async count(accountId: string): Promise<number> {
    const r = await this.db.knex('cloned_voices').where({ account_id: accountId }).count<{ n: number | string }[]>({ n: '*' });
    return Number(r[0]?.n ?? 0);
  }

  async delete(voiceId: string, accountId?: string): Promise<boolean> {
    const row = await this.row(voiceId, accountId);
    if (!row) return false;
    const gone = await this.db.knex('cloned_voices').where({ voice_id: voiceId, account_id: row.account_id }).delete();
    this.profiles.delete(voiceId);
    await Promise.all([row.profile_key, row.reference_key, row.sample_key].map((k) => this.blobs.delete(k).catch((e) => {
      this.logger.warn({ err: e, voiceId, key: k }, 'clone: removing a stored file of a deleted voice failed');
    })));
    return gone > 0;
  }

  async sampleWav(voiceId: string, accountId?: string): Promise<Buffer | null> {
    const row = await this.row(voiceId, accountId);
    if (!row) return null;
    const chunks: Buffer[] = [];
    for await (const c of await this.blobs.get(row.sample_key)) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  async row(voiceId: string, accountId?: string): Promise<ClonedRow | undefined> {
    if (!voiceId.startsWith('cv_')) return undefined;
    const row = await this.db.knex('cloned_voices').where({ voice_id: voiceId }).first() as ClonedRow | undefined;
    if (!row || (accountId !== undefined && row.account_id !== accountId)) return undefined;
    return row;
  }

  async rowsOf(accountId: string): Promise<ClonedRow[]> {
    return await this.db.knex('cloned_voices').where({ account_id: accountId }).orderBy('created_at') as ClonedRow[];
  }

  async profile(row: ClonedRow): Promise<StoredProfile> {
    let p = this.profiles.get(row.voice_id);
    if (!p) {
      p = (async () => {
        const chunks: Buffer[] = [];
        for await (const c of await this.blobs.get(row.profile_key)) chunks.push(c as Buffer);
        const profile = JSON.parse(Buffer.concat(chunks).toString('utf8')) as StoredProfile;
        if (profile.version !== PROFILE_VERSION) throw new Error(`voice profile version ${profile.version} is not supported`);
        return profile;
      })();
      this.profiles.set(row.voice_id, p);
      p.catch(() => this.profiles.delete(row.voice_id));
    }
    return p;
  }

  /** Synthesis with a cloned voice, or null when `req.voiceId` is none of the account's clones. */
  async synthesizeClone(req: SynthesisRequest): Promise<SpeechStream | null> {
    const row = await this.row(req.voiceId, req.accountId);
    if (!row) return null;
    const profile = await this.profile(row);
    return this.speak(profile, req, row.similarity, () => errors.internal('Speech synthesis failed'));
  }
}

function toRecord(row: ClonedRow): ClonedVoiceRecord {
  return { id: row.id, ...toInfo(row), avatar_url: row.avatar_url, stability: row.stability };
}

function toInfo(row: ClonedRow): VoiceInfo {
  return {
    voice_id: row.voice_id, name: row.name, description: row.description, gender: row.gender, age: row.age,
    languages: JSON.parse(row.languages) as string[], dialect: JSON.parse(row.dialect) as string[], type: row.type, sample_url: samplePath(row.voice_id),
  };
}

/** Built-in voices for everyone, cloned voices for their owner only. */
export class VoiceCatalogWithClones implements VoiceCatalog {
  constructor(private readonly builtin: BuiltinVoiceCatalog, private readonly clones: VoiceCloningService) {}

  async list(accountId: string): Promise<VoiceInfo[]> {
    const own = accountId ? (await this.clones.rowsOf(accountId)).map(toInfo) : [];
    return [...(await this.builtin.list(accountId)), ...own];
  }

  async get(voiceId: string, accountId: string): Promise<VoiceInfo | undefined> {
    const b = await this.builtin.get(voiceId, accountId);
    if (b) return b;
    const row = await this.clones.row(voiceId, accountId);
    return row && toInfo(row);
  }

  modelsFor(voiceId: string): string[] | undefined {
    return this.builtin.modelsFor(voiceId);
  }
}
