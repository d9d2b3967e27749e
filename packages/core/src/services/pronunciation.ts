/** An account's pronunciation dictionaries: a request names up to three, applied in order before normalization. */
import { errors } from '../errors.js';

export type PhoneticAlphabet = 'ipa' | 'x-sawt';

/** A rule as the API takes and returns it (ElevenLabs' field names). */
export type PronunciationRule =
  | { string_to_replace: string; type: 'alias'; alias: string }
  | { string_to_replace: string; type: 'phoneme'; phoneme: string; alphabet: PhoneticAlphabet };

/** `pronunciation_dictionary_locators` of a request: a dictionary, at a version (default: its latest). */
export interface DictionaryLocator {
  pronunciation_dictionary_id: string;
  version_id?: string;
}

/** A locator resolved: the version's id (immutable rules) and its rules, parsed when first asked for. */
export interface ResolvedDictionaryVersion {
  versionId: string;
  rules(): PronunciationRule[];
}

/** The most locators one request may name. */
export const MAX_DICTIONARY_LOCATORS = 3;

/** JSON Schema of a request's `pronunciation_dictionary_locators` (OpenAPI, AsyncAPI). */
export const DICTIONARY_LOCATORS_SCHEMA = {
  type: 'array',
  maxItems: MAX_DICTIONARY_LOCATORS,
  description: `Up to ${MAX_DICTIONARY_LOCATORS} of the account's pronunciation dictionaries (POST /pronunciation-dictionaries), applied in this order before normalization; an unknown, deleted or other account's dictionary is 404 / 40401`,
  items: {
    type: 'object',
    required: ['pronunciation_dictionary_id'],
    properties: {
      pronunciation_dictionary_id: { type: 'string' },
      version_id: { type: 'string', description: 'A version of the dictionary (default: its latest)' },
    },
  },
} as const;

/** A request's `pronunciation_dictionary_locators` checked (400 / 40001 naming the fault); empty or absent: undefined. */
export function parseDictionaryLocators(raw: unknown, field = 'pronunciation_dictionary_locators'): DictionaryLocator[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw errors.validation(`${field} must be an array of {pronunciation_dictionary_id, version_id?}`);
  if (raw.length > MAX_DICTIONARY_LOCATORS) throw errors.validation(`${field} names ${raw.length} dictionaries; at most ${MAX_DICTIONARY_LOCATORS} per request`);
  const out = raw.map((l: unknown, i) => {
    const where = `${field}[${i}]`;
    const o = l as Record<string, unknown> | null;
    if (o === null || typeof o !== 'object' || Array.isArray(o)) throw errors.validation(`${where} must be an object {pronunciation_dictionary_id, version_id?}`);
    if (typeof o.pronunciation_dictionary_id !== 'string' || o.pronunciation_dictionary_id.trim() === '') throw errors.validation(`${where}.pronunciation_dictionary_id is required`);
    if (o.version_id !== undefined && o.version_id !== null && typeof o.version_id !== 'string') throw errors.validation(`${where}.version_id must be a string`);
    return { pronunciation_dictionary_id: o.pronunciation_dictionary_id, ...(typeof o.version_id === 'string' && { version_id: o.version_id }) };
  });
  return out.length ? out : undefined;
}

export interface PronunciationDictionaries {
  /** The rules of the named dictionaries, earlier locators' first (they win); 404 / 40401 for one the account lacks. */
  resolveLocators(accountId: string, locators: readonly DictionaryLocator[]): Promise<PronunciationRule[]>;
  /** resolveLocators per locator: each version's id (its rules never change: cacheable) and its rules. */
  resolveVersions?(accountId: string, locators: readonly DictionaryLocator[]): Promise<ResolvedDictionaryVersion[]>;
  /** The rules of a dictionary file (PLS 1.0, `{rules: [...]}` or a rules array), checked as the routes do. */
  parseRulesFile(source: string): PronunciationRule[];
}
