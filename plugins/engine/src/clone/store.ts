/**
 * Where cloned voices live: a row per voice in the database (owner, fields, the
 * settings of its last preview) and three files in blob storage (profile.json, the
 * reference recording, sample.wav); the previews' settings by reference sha256.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import {
  encodeWav, errors, lockRows, type BlobStore, type ClonedVoiceRecord, type Database, type Logger, type Migration, type VoiceCatalog, type VoiceCloning, type VoiceInfo,
} from '@sawt/core';
import { samplePath, type BuiltinVoiceCatalog } from '../catalog.js';
import { CLONE_RATE, PROFILE_VERSION, type StoredProfile } from './profile-math.js';

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

export interface ClonedRow {
  id: string; voice_id: string; account_id: string; name: string; description: string | null; gender: string | null; age: string | null;
  languages: string; dialect: string; type: string | null; avatar_url: string | null; stability: number; similarity: number; speed: number;
  model_id: string; base_voice_id: string; text: string; profile_key: string; reference_key: string; sample_key: string; created_at: string;
}

/** What the store keeps of a new clone: the request's fields with its profile already mapped onto the clone's model. */
export type NewClone = Parameters<VoiceCloning['create']>[0] & { profile: StoredProfile };

export const isCloneId = (voiceId: string): boolean => voiceId.startsWith('cv_');

export class CloneStore {
  /** Profiles read (or written) so far, by voice id. */
  private readonly profiles = new Map<string, Promise<StoredProfile>>();

  constructor(private readonly db: Database, private readonly blobs: BlobStore, private readonly logger: Logger) {}

  async rememberPreview(input: { accountId: string; referenceSha256: string; similarity: number; speed: number }): Promise<void> {
    await this.db.knex('voice_previews').insert({
      id: randomUUID(), account_id: input.accountId, reference_sha256: input.referenceSha256, similarity: input.similarity, speed: input.speed, created_at: new Date().toISOString(),
    });
  }

  /**
   * Stores the clone's files, then its row (with the settings of its reference's last preview); with
   * `limit`, counting the account's clones and inserting the row are one transaction that holds the
   * account's row, and the files are removed again when it refuses.
   */
  async create(input: NewClone): Promise<ClonedVoiceRecord> {
    const voiceId = `cv_${randomBytes(12).toString('hex')}`;
    const prefix = `voices/${voiceId}`;
    const last = await this.db.knex('voice_previews').where({ account_id: input.accountId, reference_sha256: input.referenceSha256 }).orderBy('created_at', 'desc').first() as { similarity: number; speed: number } | undefined;
    const { profile } = input;
    const keys = { profile: `${prefix}/profile.json`, reference: `${prefix}/reference.wav`, sample: `${prefix}/sample.wav` };
    try {
      await this.blobs.put(keys.profile, Buffer.from(JSON.stringify(profile)));
      // Streamed from the file (the caller's transcoded, length-capped copy), never read whole.
      await this.blobs.put(keys.reference, createReadStream(input.referenceFile));
      await this.blobs.put(keys.sample, input.sampleFile ? createReadStream(input.sampleFile) : encodeWav([input.samplePcm ?? Buffer.alloc(0)], CLONE_RATE));
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
    try {
      await this.db.knex.transaction(async (trx) => {
        const { limit } = input;
        if (limit) {
          // The account's row is locked until the insert commits: parallel clones of one account
          // count and insert one after the other, so the plan's limit holds.
          await lockRows(trx, { table: 'accounts', id: 'id', ids: [input.accountId], columns: ['id'], touch: 'plan' });
          const held = await this.count(input.accountId, trx);
          if (held >= limit.max) throw limit.refuse(held);
        }
        await trx('cloned_voices').insert(row);
      });
    } catch (e) {
      await Promise.all(Object.values(keys).map((k) => this.blobs.delete(k).catch(() => {})));
      throw e;
    }
    this.profiles.set(voiceId, Promise.resolve(profile));
    return toRecord(row);
  }

  async list(accountId?: string): Promise<Array<ClonedVoiceRecord & { account_id: string; created_at: string }>> {
    const q = this.db.knex('cloned_voices').orderBy('created_at');
    const rows = (accountId === undefined ? await q : await q.where({ account_id: accountId })) as ClonedRow[];
    return rows.map((r) => ({ ...toRecord(r), account_id: r.account_id, created_at: r.created_at }));
  }

  async count(accountId: string, trx: Database['knex'] = this.db.knex): Promise<number> {
    const r = await trx('cloned_voices').where({ account_id: accountId }).count<{ n: number | string }[]>({ n: '*' });
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

  /** The clone `voiceId`, when it exists and (with `accountId`) belongs to that account. */
  async row(voiceId: string, accountId?: string): Promise<ClonedRow | undefined> {
    if (!isCloneId(voiceId)) return undefined;
    const row = await this.db.knex('cloned_voices').where({ voice_id: voiceId }).first() as ClonedRow | undefined;
    if (!row || (accountId !== undefined && row.account_id !== accountId)) return undefined;
    return row;
  }

  async rowsOf(accountId: string): Promise<ClonedRow[]> {
    return await this.db.knex('cloned_voices').where({ account_id: accountId }).orderBy('created_at') as ClonedRow[];
  }

  /** The stored profile of a clone (read once, then kept). */
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
  constructor(private readonly builtin: BuiltinVoiceCatalog, private readonly clones: CloneStore) {}

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
