/**
 * Pronunciation dictionaries in the database (SQLite or PostgreSQL): an account's own, versioned.
 * Another account's dictionary is "not found", alike an unknown one, so ids reveal nothing.
 */
import { randomUUID } from 'node:crypto';
import {
  errors, lockRows, MAX_DICTIONARY_LOCATORS, SawtError,
  type Database, type DictionaryLocator, type PronunciationDictionaries, type PronunciationRule, type ResolvedDictionaryVersion,
} from '@sawt/core';
import type { Knex } from 'knex';
import { checkRuleCount, checkRules, checkUnique, patchRules, type DictionaryLimits } from './rules.js';
import { parsePls } from './pls.js';

export interface DictionarySummary {
  id: string;
  name: string;
  version_id: string;
  rule_count: number;
  created_at: string;
  updated_at: string;
}

export interface DictionaryVersion {
  id: string;
  name: string;
  version_id: string;
  /** 1 for the dictionary as created, +1 per change. */
  version_number: number;
  /** The dictionary's current version (requests without version_id use it). */
  latest_version_id: string;
  rules: PronunciationRule[];
}

interface DictionaryRow {
  id: string;
  account_id: string;
  name: string;
  latest_version_id: string;
  created_at: string;
  updated_at: string;
}

interface VersionRow {
  id: string;
  dictionary_id: string;
  number: number;
  rules: string;
  rule_count: number;
  created_at: string;
}

const clip = (s: string) => (s.length > 100 ? `${s.slice(0, 100)}…` : s);
export const dictionaryNotFound = (id: string) => new SawtError('notFound', `Pronunciation dictionary '${clip(id)}' not found`);
const versionNotFound = (id: string, versionId: string) => new SawtError('notFound', `Pronunciation dictionary '${clip(id)}' has no version '${clip(versionId)}'`);

export class DictionaryStore implements PronunciationDictionaries {
  constructor(private readonly db: Database, private readonly limits: DictionaryLimits) {}

  async create(accountId: string, name: string, rules: PronunciationRule[]): Promise<DictionaryVersion> {
    checkRuleCount(rules.length, this.limits);
    const now = new Date().toISOString();
    const id = randomUUID();
    const versionId = randomUUID();
    await this.db.knex.transaction(async (trx) => {
      // The account's row is locked until the insert commits: parallel creates count one after the other.
      await lockRows(trx, { table: 'accounts', id: 'id', ids: [accountId], columns: ['id'], touch: 'plan' });
      const held = Number((await trx('pronunciation_dictionaries').where({ account_id: accountId }).count<Array<{ n: number | string }>>({ n: '*' }))[0]!.n);
      if (held >= this.limits.dictionariesPerAccount) {
        throw errors.validation(`This account holds ${held} pronunciation dictionaries, the limit (${this.limits.dictionariesPerAccount}); delete one (DELETE /api/v1/pronunciation-dictionaries/{id}) before creating another`);
      }
      await trx('pronunciation_dictionaries').insert({ id, account_id: accountId, name, latest_version_id: versionId, created_at: now, updated_at: now } satisfies DictionaryRow);
      await trx('pronunciation_dictionary_versions').insert({ id: versionId, dictionary_id: id, number: 1, rules: JSON.stringify(rules), rule_count: rules.length, created_at: now } satisfies VersionRow);
    });
    return { id, name, version_id: versionId, version_number: 1, latest_version_id: versionId, rules };
  }

  async list(accountId: string): Promise<DictionarySummary[]> {
    const rows = await this.db.reader('pronunciation_dictionaries as d')
      .join('pronunciation_dictionary_versions as v', 'v.id', 'd.latest_version_id')
      .where('d.account_id', accountId)
      .orderBy([{ column: 'd.created_at' }, { column: 'd.id' }])
      .select<Array<DictionaryRow & { rule_count: number }>>('d.id', 'd.name', 'd.latest_version_id', 'd.created_at', 'd.updated_at', 'v.rule_count');
    return rows.map((r) => ({ id: r.id, name: r.name, version_id: r.latest_version_id, rule_count: Number(r.rule_count), created_at: r.created_at, updated_at: r.updated_at }));
  }

  /** The dictionary at `versionId` (default: its latest), 404 when the account has no such dictionary or version. */
  async get(accountId: string, id: string, versionId?: string, trx: Knex = this.db.reader): Promise<DictionaryVersion> {
    const dict = await trx<DictionaryRow>('pronunciation_dictionaries').where({ id, account_id: accountId }).first();
    if (!dict) throw dictionaryNotFound(id);
    const version = await trx<VersionRow>('pronunciation_dictionary_versions').where({ id: versionId ?? dict.latest_version_id, dictionary_id: id }).first();
    if (!version) throw versionNotFound(id, versionId ?? dict.latest_version_id);
    return { id, name: dict.name, version_id: version.id, version_number: Number(version.number), latest_version_id: dict.latest_version_id, rules: JSON.parse(version.rules) as PronunciationRule[] };
  }

  /** A new version: rules added (or replacing those for the same strings) and removed, and/or a new name. */
  async patch(accountId: string, id: string, change: { add: PronunciationRule[]; remove: string[]; name?: string }): Promise<DictionaryVersion> {
    return this.db.knex.transaction(async (trx) => {
      // Changes to one dictionary apply one after the other, each on the version before it.
      const [locked] = await lockRows<DictionaryRow>(trx, { table: 'pronunciation_dictionaries', id: 'id', ids: [id], columns: ['id', 'account_id'], touch: 'name', where: (q) => q.where({ account_id: accountId }) });
      if (!locked) throw dictionaryNotFound(id);
      const current = await this.get(accountId, id, undefined, trx);
      const rules = patchRules(current.rules, change.add, change.remove);
      checkRuleCount(rules.length, this.limits);
      const now = new Date().toISOString();
      const versionId = randomUUID();
      const number = current.version_number + 1;
      const name = change.name ?? current.name;
      await trx('pronunciation_dictionary_versions').insert({ id: versionId, dictionary_id: id, number, rules: JSON.stringify(rules), rule_count: rules.length, created_at: now } satisfies VersionRow);
      await trx('pronunciation_dictionaries').where({ id }).update({ name, latest_version_id: versionId, updated_at: now });
      return { id, name, version_id: versionId, version_number: number, latest_version_id: versionId, rules };
    });
  }

  /** Removes the dictionary and every version of it; false when the account has no such dictionary. */
  async delete(accountId: string, id: string): Promise<boolean> {
    return this.db.knex.transaction(async (trx) => {
      const dict = await trx('pronunciation_dictionaries').where({ id, account_id: accountId }).first('id');
      if (!dict) return false;
      await trx('pronunciation_dictionary_versions').where({ dictionary_id: id }).delete();
      await trx('pronunciation_dictionaries').where({ id }).delete();
      return true;
    });
  }

  parseRulesFile(source: string): PronunciationRule[] {
    const text = source.replace(/^\uFEFF/u, '').trim();
    if (text.startsWith('<')) return checkUnique(parsePls(text), 'PLS file');
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw errors.validation('A dictionary file must be a PLS 1.0 lexicon or JSON ({"rules": [...]} or an array of rules)');
    }
    const rules = Array.isArray(body) ? body : (body as { rules?: unknown } | null)?.rules;
    const checked = checkUnique(checkRules(rules, 'rules'), 'rules');
    checkRuleCount(checked.length, this.limits);
    return checked;
  }

  async resolveLocators(accountId: string, locators: readonly DictionaryLocator[]): Promise<PronunciationRule[]> {
    // Earlier locators first: the matcher prefers the earlier of two rules for the same words.
    return (await this.resolveVersions(accountId, locators)).flatMap((v) => v.rules());
  }

  async resolveVersions(accountId: string, locators: readonly DictionaryLocator[]): Promise<ResolvedDictionaryVersion[]> {
    if (!Array.isArray(locators)) throw errors.validation('pronunciation_dictionary_locators must be an array');
    if (locators.length > MAX_DICTIONARY_LOCATORS) throw errors.validation(`pronunciation_dictionary_locators names ${locators.length} dictionaries; at most ${MAX_DICTIONARY_LOCATORS} per request`);
    const out: ResolvedDictionaryVersion[] = [];
    for (const [i, l] of locators.entries()) {
      const where = `pronunciation_dictionary_locators[${i}]`;
      if (l === null || typeof l !== 'object' || typeof l.pronunciation_dictionary_id !== 'string' || l.pronunciation_dictionary_id.trim() === '') {
        throw errors.validation(`${where}.pronunciation_dictionary_id is required`);
      }
      if (l.version_id !== undefined && l.version_id !== null && typeof l.version_id !== 'string') throw errors.validation(`${where}.version_id must be a string`);
      const id = l.pronunciation_dictionary_id.trim();
      const dict = await this.db.reader<DictionaryRow>('pronunciation_dictionaries').where({ id, account_id: accountId }).first();
      if (!dict) throw dictionaryNotFound(id);
      const versionId = l.version_id ?? dict.latest_version_id;
      const version = await this.db.reader<VersionRow>('pronunciation_dictionary_versions').where({ id: versionId, dictionary_id: id }).first();
      if (!version) throw versionNotFound(id, versionId);
      let parsed: PronunciationRule[] | null = null;
      // Parsed only when asked: a caller that kept what it built of this version skips it.
      out.push({ versionId: version.id, rules: () => (parsed ??= JSON.parse(version.rules) as PronunciationRule[]) });
    }
    return out;
  }
}
