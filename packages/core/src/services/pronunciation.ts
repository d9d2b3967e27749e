/**
 * Pronunciation dictionaries owned by an account (plugin @sawt/plugin-dictionaries): a request
 * names up to three by locator; their rules apply to the request's text before normalization,
 * in the locators' order. The engine's front end applies them (frontend/ssml/pronunciations.ts).
 */
import { tokens } from '../tokens.js';

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

/** The most locators one request may name. */
export const MAX_DICTIONARY_LOCATORS = 3;

export interface PronunciationDictionaries {
  /**
   * The rules of the dictionaries `locators` name, in locator order (earlier locators' rules
   * first, so they win between rules for the same words). 404 / 40401 for a dictionary that is
   * unknown, deleted or another account's, or a version it does not have; 400 / 40001 for more
   * than MAX_DICTIONARY_LOCATORS locators or a malformed one.
   */
  resolveLocators(accountId: string, locators: readonly DictionaryLocator[]): Promise<PronunciationRule[]>;
  /**
   * The rules of a dictionary file (e.g. `sawt text --dictionary FILE`): a PLS 1.0 lexicon, or JSON
   * `{rules: [...]}` or a rules array; the same checks as the routes (400 / 40001 naming the fault).
   */
  parseRulesFile(source: string): PronunciationRule[];
}

/** @deprecated tokens.pronunciationDictionaries (the same service). */
export const pronunciationDictionariesToken = tokens.pronunciationDictionaries;
