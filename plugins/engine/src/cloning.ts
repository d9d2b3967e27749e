/**
 * Voice cloning: a reference recording is analyzed (native: VAD, F0, LTAS,
 * MFCCs, syllable rate) into a versioned profile; speech of the built-in base
 * voice closest in log-F0 is converted toward it (native: LPC analysis-synthesis
 * with TD-PSOLA F0 mapping, VTL frequency warping and a smooth EQ), segment by
 * segment as it is synthesized. Cloned voices live in the database (owner,
 * fields) and blob storage (profile.json, reference, sample.wav).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import {
  encodeWav, errors, type BlobStore, type ChunkInfo, type ClonedVoiceRecord, type Database, type Logger, type Migration,
  type SpeechStream, type SynthesisRequest, type VoiceCatalog, type VoiceCloning, type VoiceInfo, type VoiceProfile,
} from '@sawt/core';
import { samplePath, type BuiltinVoiceCatalog } from './catalog.js';
import { analyzeVoice, convertVoice, matchSpectra, type ConvertParams, type VoiceAnalysis } from './native/voice.js';
import { Resampler } from './native/resampler.js';

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
  base: { voiceId: string; f0Median: number; logF0Mean: number; logF0Std: number; syllableRate: number };
  mapping: { warp: number; eqDb: number[]; rateRatio: number; spectralDistanceBefore: number; spectralDistanceAfter: number };
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** Conversion settings at a similarity (0: the base voice unchanged, 1: the full mapping). */
export function conversionAt(profile: StoredProfile, similarity: number): { params: ConvertParams; speedFactor: number } {
  const s = clamp(similarity, 0, 1);
  const { base, reference: ref, mapping } = profile;
  const srcStd = Math.max(0.01, base.logF0Std);
  return {
    params: {
      srcLogF0Mean: base.logF0Mean,
      srcLogF0Std: srcStd,
      dstLogF0Mean: base.logF0Mean + s * (ref.logF0Mean - base.logF0Mean),
      dstLogF0Std: srcStd * Math.pow(Math.max(0.01, ref.logF0Std) / srcStd, s),
      warp: Math.pow(mapping.warp, s),
      eqDb: mapping.eqDb.map((d) => d * s),
    },
    speedFactor: Math.pow(mapping.rateRatio, s),
  };
}

/**
 * Converts a base-voice stream (PCM16 at CLONE_RATE) segment by segment: each
 * segment's audio is collected, converted off the main thread, resampled to
 * `outRate` and pushed with one chunk-info (word timings kept).
 */
export function convertingStream(src: SpeechStream, params: ConvertParams, outRate: number, failure: () => Error): SpeechStream {
  const infos: ChunkInfo[] = [];
  src.on('chunk-info', (info: ChunkInfo & { segmentEnd?: boolean }) => {
    if (info.samples > 0) infos.push(info);
  });
  const resampler = outRate === CLONE_RATE ? null : new Resampler(CLONE_RATE, outRate);
  let wake: (() => void) | null = null;
  let started = false;
  const out: SpeechStream = new Readable({
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
  const push = async (buf: Buffer) => {
    if (!out.push(buf)) await new Promise<void>((r) => (wake = r));
  };
  async function pump(): Promise<void> {
    let parts: Buffer[] = [];
    let words: ChunkInfo['words'] = [];
    let samples = 0;
    let segment = 0;
    for await (const chunk of src) {
      const info = infos.shift() as (ChunkInfo & { segmentEnd?: boolean }) | undefined;
      const c = chunk as Buffer;
      for (const w of info?.words ?? []) words.push({ ...w, audioMs: w.audioMs + (samples / CLONE_RATE) * 1000 });
      parts.push(c);
      samples += c.length / 2;
      segment = info?.segment ?? segment;
      if (info?.segmentEnd !== false) {
        let pcm = await convertVoice(Buffer.concat(parts), CLONE_RATE, params);
        if (out.destroyed) return;
        if (resampler) {
          const r = resampler.process(new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2));
          pcm = Buffer.from(r.buffer, r.byteOffset, r.byteLength);
        }
        out.emit('chunk-info', { segment, final: false, segmentEnd: true, samples: pcm.length / 2, words });
        await push(pcm);
        parts = [];
        words = [];
        samples = 0;
      }
    }
    if (parts.length) {
      const pcm = await convertVoice(Buffer.concat(parts), CLONE_RATE, params);
      out.emit('chunk-info', { segment, final: false, segmentEnd: true, samples: pcm.length / 2, words });
      await push(pcm);
    }
    if (resampler) {
      const t = resampler.flush();
      if (t.length) await push(Buffer.from(t.buffer, t.byteOffset, t.byteLength));
    }
    out.emit('chunk-info', { segment, final: true, segmentEnd: true, samples: 0, words: [] });
    out.push(null);
  }
  return out;
}

type Synthesize = (req: SynthesisRequest) => Promise<SpeechStream>;

export class VoiceCloningService implements VoiceCloning {
  private readonly profiles = new Map<string, Promise<StoredProfile>>();
  private baseProfiles: Promise<Array<{ voiceId: string; analysis: VoiceAnalysis }>> | null = null;
  private synthesizeBase: Synthesize | null = null;

  constructor(
    private readonly db: Database,
    private readonly blobs: BlobStore,
    private readonly builtin: BuiltinVoiceCatalog,
    private readonly baseVoiceIds: string[],
    private readonly defaultModelId: () => string,
    private readonly logger: Logger,
  ) {}

  /** The synthesizer of base voices (set once the synthesizer exists). */
  attach(synthesize: Synthesize): void {
    this.synthesizeBase = synthesize;
  }

  private async bases(): Promise<Array<{ voiceId: string; analysis: VoiceAnalysis }>> {
    if (!this.baseProfiles) {
      this.baseProfiles = Promise.all(this.baseVoiceIds.map(async (voiceId) => {
        const stream = await this.synthesizeBase!({ modelId: this.defaultModelId(), voiceId, accountId: '', text: BASE_TEXT, speed: 1, stability: 0.5, sampleRate: CLONE_RATE });
        const chunks: Buffer[] = [];
        for await (const c of stream) chunks.push(c as Buffer);
        return { voiceId, analysis: await analyzeVoice(Buffer.concat(chunks), CLONE_RATE) };
      }));
      this.baseProfiles.catch(() => (this.baseProfiles = null));
    }
    return this.baseProfiles;
  }

  async analyze(pcm: Buffer): Promise<StoredProfile> {
    const ref = await analyzeVoice(pcm, CLONE_RATE);
    if (ref.voicedSeconds < MIN_VOICED_SECONDS) {
      throw errors.validation(`The audio holds too little speech: ${ref.voicedSeconds.toFixed(2)} s of voiced speech found, at least ${MIN_VOICED_SECONDS} s are needed`);
    }
    const bases = await this.bases();
    const base = bases.reduce((a, b) => (Math.abs(b.analysis.logF0Mean - ref.logF0Mean) < Math.abs(a.analysis.logF0Mean - ref.logF0Mean) ? b : a));
    const m = matchSpectra(ref.ltasDb, base.analysis.ltasDb, CLONE_RATE);
    const { sampleRate: _sr, ...reference } = ref;
    const b = base.analysis;
    return {
      version: PROFILE_VERSION,
      kind: 'sawt-voice-profile',
      sampleRate: CLONE_RATE,
      reference,
      base: { voiceId: base.voiceId, f0Median: b.f0Median, logF0Mean: b.logF0Mean, logF0Std: b.logF0Std, syllableRate: b.syllableRate },
      mapping: {
        warp: m.warp,
        eqDb: m.eqDb.map((d) => Math.round(d * 100) / 100),
        rateRatio: b.syllableRate > 0 && ref.syllableRate > 0 ? clamp(ref.syllableRate / b.syllableRate, 0.75, 1.3) : 1,
        spectralDistanceBefore: m.distanceBefore,
        spectralDistanceAfter: m.distanceAfter,
      },
    };
  }

  /** Base-voice speech converted toward `profile`. */
  async speak(profile: StoredProfile, req: SynthesisRequest, similarity: number, failure: () => Error): Promise<SpeechStream> {
    if (!this.synthesizeBase) throw errors.internal('voice cloning is not ready');
    const { params, speedFactor } = conversionAt(profile, similarity);
    const outRate = req.sampleRate ?? CLONE_RATE;
    const src = await this.synthesizeBase({ ...req, voiceId: profile.base.voiceId, speed: clamp(req.speed * speedFactor, 0.5, 1.6), sampleRate: similarity > 0 ? CLONE_RATE : outRate });
    if (similarity <= 0) return src;
    return convertingStream(src, params, outRate, failure);
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
    const profile = input.profile as StoredProfile;
    const keys = { profile: `${prefix}/profile.json`, reference: `${prefix}/reference.bin`, sample: `${prefix}/sample.wav` };
    try {
      await this.blobs.put(keys.profile, Buffer.from(JSON.stringify(profile)));
      await this.blobs.put(keys.reference, await readFile(input.referenceFile));
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

  async sampleWav(voiceId: string): Promise<Buffer | null> {
    const row = await this.row(voiceId);
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
}
