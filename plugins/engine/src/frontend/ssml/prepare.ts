/**
 * The one call the paid path makes before money is taken: the request's text (SSML or plain),
 * its dictionaries' rules and the model's limits → the document to speak, the text billing
 * counts, and the steps for the back end. Every 400 (bad markup, a phoneme the model cannot say,
 * a rate outside the model's range, an unusable rule) comes from here, before admission.
 */
import { errors, meetsTextMinimum, TEXT_TOO_SHORT_MESSAGE, type PronunciationRule } from '@sawt/core';
import type { PhonemeInventory } from '../phoneme-passages.js';
import { speechSteps, ssmlBillableText, where, type SpeechDocument, type SpeechStep } from './document.js';
import { checkDocumentPhonemes, parseSpeechText, type TextType } from './parse.js';
import { applyPronunciations, PronunciationMatcher } from './pronunciations.js';
import { checkRateRange } from './prosody.js';
import type { XmlLimits } from './xml.js';

export interface SpeechTextRequest {
  text: string;
  textType?: TextType;
  /** The rules of the request's dictionaries, in locator order (PronunciationDictionaries.resolveLocators). */
  rules?: readonly PronunciationRule[];
  /** The rules compiled already (wins over `rules`): the engine keeps the matchers of dictionary versions. */
  matcher?: PronunciationMatcher;
  /** The request's speed (prosody rates multiply it). */
  speed: number;
  model: {
    id: string;
    /** What the model can say (phoneme-passages.ts: espeakInventory for sawt-mini and Piper, htsInventory for sawt-hts). */
    inventory: PhonemeInventory;
    /** The speaking rates (speed × prosody rate) the model can render. */
    minRate: number;
    maxRate: number;
  };
  limits?: XmlLimits;
  /** Apply the 3-word / 10-character rule to the spoken text (HTTP; a WebSocket checks its flushes). Default true. */
  textRule?: boolean;
}

export interface PreparedSpeech {
  document: SpeechDocument;
  /** The spoken text: what billableChars counts, the text rule checks and the delivery meter spreads over the audio. */
  billableText: string;
  /** speak / pause / mark, in order, for the back end. */
  steps: SpeechStep[];
}

export function prepareSpeechText(req: SpeechTextRequest): PreparedSpeech {
  const parsed = parseSpeechText(req.text, { ...(req.textType && { textType: req.textType }), ...(req.limits && { limits: req.limits }) });
  const matcher = req.matcher ?? (req.rules?.length ? new PronunciationMatcher(req.rules) : null);
  const document = matcher?.size ? applyPronunciations(parsed, matcher) : parsed;
  // After the rules: their phoneme passages are checked against the model like the user's own.
  checkDocumentPhonemes(document, req.model.inventory);
  for (const item of document.items) {
    if (item.kind === 'speech' && item.prosody.rate !== 1 && item.text.trim()) checkRateRange(item.prosody.rate, req.speed, req.model, where(item.source));
  }
  const billableText = ssmlBillableText(document);
  if (req.textRule !== false && !meetsTextMinimum(billableText)) {
    throw errors.validation(document.markup === 'ssml' ? `${TEXT_TOO_SHORT_MESSAGE} (counted on the spoken text, without markup)` : TEXT_TOO_SHORT_MESSAGE);
  }
  return { document, billableText, steps: speechSteps(document) };
}
