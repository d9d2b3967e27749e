/**
 * A dictionary's rules as the API takes them (JSON, or lexemes of a PLS file): checked one by one
 * with messages that name the rule, at most one rule per string, and the dictionary's cap.
 */
import { errors, type PhoneticAlphabet, type PronunciationRule } from '@sawt/core';

export const PHONETIC_ALPHABETS: readonly PhoneticAlphabet[] = ['ipa', 'x-sawt'];
/** Longest string_to_replace, alias and phoneme (a name or a phrase, never a text). */
export const RULE_FIELD_LIMITS = { stringToReplace: 200, alias: 500, phoneme: 500 } as const;

export interface DictionaryLimits {
  rulesPerDictionary: number;
  dictionariesPerAccount: number;
  plsBytes: number;
}

const clip = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);

function text(value: unknown, label: string, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw errors.validation(`${label} is required (a non-empty string)`);
  const v = value.normalize('NFC').trim();
  if ([...v].length > max) throw errors.validation(`${label} is too long: at most ${max} characters are accepted`);
  return v;
}

/** One rule of a request (`where`: how messages name it, e.g. "rules[3]"). */
export function checkRule(input: unknown, where: string): PronunciationRule {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) throw errors.validation(`${where} must be an object {string_to_replace, type, …}`);
  const r = input as Record<string, unknown>;
  const key = text(r.string_to_replace, `${where}.string_to_replace`, RULE_FIELD_LIMITS.stringToReplace);
  if (!/[\p{L}\p{N}]/u.test(key)) throw errors.validation(`${where}.string_to_replace '${clip(key)}' has no letter or digit to match`);
  if (r.type === 'alias') return { string_to_replace: key, type: 'alias', alias: text(r.alias, `${where}.alias`, RULE_FIELD_LIMITS.alias) };
  if (r.type === 'phoneme') {
    const phoneme = text(r.phoneme, `${where}.phoneme`, RULE_FIELD_LIMITS.phoneme);
    if (!PHONETIC_ALPHABETS.includes(r.alphabet as PhoneticAlphabet)) {
      throw errors.validation(`${where}.alphabet must be one of ${PHONETIC_ALPHABETS.join(', ')}${typeof r.alphabet === 'string' ? ` (not '${clip(r.alphabet)}')` : ''}`);
    }
    return { string_to_replace: key, type: 'phoneme', phoneme, alphabet: r.alphabet as PhoneticAlphabet };
  }
  throw errors.validation(`${where}.type must be alias or phoneme`);
}

/** The rules of a request: an array of rules, each checked, no string twice. */
export function checkRules(input: unknown, label: string): PronunciationRule[] {
  if (!Array.isArray(input)) throw errors.validation(`${label} must be an array of rules`);
  return checkUnique(input.map((r, i) => checkRule(r, `${label}[${i}]`)), label);
}

/** A dictionary holds one rule per string: a second one is a 400 naming it. */
export function checkUnique(rules: PronunciationRule[], label: string): PronunciationRule[] {
  const seen = new Set<string>();
  for (const r of rules) {
    if (seen.has(r.string_to_replace)) throw errors.validation(`${label}: the string '${clip(r.string_to_replace)}' has two rules; a dictionary holds one rule per string`);
    seen.add(r.string_to_replace);
  }
  return rules;
}

export function checkRuleCount(count: number, limits: DictionaryLimits): void {
  if (count > limits.rulesPerDictionary) {
    throw errors.validation(`A pronunciation dictionary holds at most ${limits.rulesPerDictionary} rules; this one would hold ${count}`);
  }
}

export function checkName(value: unknown): string {
  return text(value, 'name', 200);
}

/**
 * A PATCH: `add_rules` replace the rules for the same strings or are added after them,
 * `remove_rules` (strings) must each name a rule of the dictionary.
 */
export function patchRules(current: readonly PronunciationRule[], add: readonly PronunciationRule[], remove: readonly string[]): PronunciationRule[] {
  const byKey = new Map(current.map((r) => [r.string_to_replace, r]));
  for (const key of remove) {
    if (!byKey.delete(key.normalize('NFC').trim())) throw errors.validation(`remove_rules: the dictionary has no rule for '${clip(key)}'`);
  }
  for (const r of add) byKey.set(r.string_to_replace, r);
  return [...byKey.values()];
}
