/**
 * The user's control over reading: SSML (a documented subset of SSML 1.1), <break> in plain
 * text, and the rules of pronunciation dictionaries, turned into one SpeechDocument that billing
 * counts and the engine reads.
 *
 *   parseSpeechText(text, { textType, inventory })  request text → SpeechDocument (400 on bad markup)
 *   applyPronunciations(doc, new PronunciationMatcher(rules))   dictionary rules on its text runs
 *   ssmlBillableText(doc)                           the spoken text billing counts
 *   speechSteps(doc)                                speak / pause / mark steps for a back end
 *   prepareSpeechText({ text, textType, rules, speed, model })   all of the above, as the paid path calls it (README.md)
 */
export { isSsml, parsePlainText, parseSpeechText, parseSsml, checkDocumentPhonemes, SUPPORTED_ELEMENTS, type ParseOptions, type TextType } from './parse.js';
export { ssmlBillableChars, ssmlBillableText, speechSteps, type SpeechDocument, type SpeechItem, type SpeechStep, type SpokenRun, type SourceSpan } from './document.js';
export { applyPronunciations, PronunciationMatcher } from './pronunciations.js';
export { checkRateRange, MAX_BREAK_MS, NEUTRAL_PROSODY, PROSODY_LIMITS, type EmphasisLevel, type Prosody } from './prosody.js';
export { ipaToXSawt } from './ipa.js';
export { SAY_AS_TYPES, DATE_FORMATS, expandSayAs } from './say-as.js';
export { XML_LIMITS, type XmlLimits } from './xml.js';
export { prepareSpeechText, type PreparedSpeech, type SpeechTextRequest } from './prepare.js';
// Cutting SSML that arrives in fragments lives in core (transport-ws uses it; plugins import no plugin).
export { cutSsml, endsInsideMarkup, type SsmlCut } from '@sawt/core';
