/**
 * Request text → SpeechDocument. SSML (text_type "ssml", or a text starting with <speak) is read
 * as the documented subset of SSML 1.1; plain text keeps every character as text except
 * ElevenLabs-style <break time="…"/> tags. Markup is never read aloud: tags become pauses, marks
 * and voice settings, and an element or attribute outside the subset is a 400 that names it.
 */
import { errors, isSawtError } from '@sawt/core';
import { checkPhonemePassages, tokenizeWord, type PhonemeInventory } from '../phoneme-passages.js';
import { spanOf, where, type SpeechDocument, type SpeechItem, type SpokenRun } from './document.js';
import { ipaToXSawt } from './ipa.js';
import { breakMs, emphasisProsody, nestProsody, NEUTRAL_PROSODY, parseEmphasis, parsePitch, parseRate, parseVolume, type EmphasisLevel, type Prosody } from './prosody.js';
import { expandSayAs, SAY_AS_TYPES, type SayAsType } from './say-as.js';
import { readXml, SourceLines, ssmlError, XML_LIMITS, type XmlElement, type XmlLimits, type XmlText } from './xml.js';

export type TextType = 'text' | 'ssml';

export interface ParseOptions {
  /** The request's text_type: "ssml" reads the text as SSML; otherwise it is SSML when it starts with <speak (see isSsml). */
  textType?: TextType;
  limits?: XmlLimits;
  /** The model's phonemes: <phoneme> passages (and inline [[…]]) are checked against it. */
  inventory?: PhonemeInventory;
}

export const SUPPORTED_ELEMENTS = ['speak', 'p', 's', 'break', 'say-as', 'sub', 'phoneme', 'lang', 'prosody', 'emphasis', 'mark'] as const;

/** Attributes each element takes (namespace declarations are accepted everywhere and ignored). */
const ATTRIBUTES: Record<string, readonly string[]> = {
  'speak': ['version', 'xml:lang', 'xml:base'],
  'p': ['xml:lang'],
  's': ['xml:lang'],
  'break': ['time', 'strength'],
  'say-as': ['interpret-as', 'format', 'detail', 'gender'],
  'sub': ['alias'],
  'phoneme': ['alphabet', 'ph'],
  'lang': ['xml:lang'],
  'prosody': ['rate', 'pitch', 'volume'],
  'emphasis': ['level'],
  'mark': ['name'],
};
/** Elements whose content is text only (no markup inside). */
const TEXT_ONLY = new Set(['say-as', 'sub', 'phoneme']);
const EMPTY = new Set(['break', 'mark']);
const LANG_TAG = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/u;
const MAX_MARK_NAME = 100;

/**
 * True when `text` is read as SSML: text_type "ssml", or a text that starts with <speak, an XML
 * declaration or a DOCTYPE (markup, which is then refused or read as SSML, never read aloud).
 */
export function isSsml(text: string, textType?: TextType): boolean {
  return textType === 'ssml' || /^\uFEFF?\s*(?:<speak[\s>/]|<\?xml[\s?]|<!DOCTYPE)/iu.test(text);
}

/** The request text as a document: SSML or plain text (see isSsml). */
export function parseSpeechText(text: string, opts: ParseOptions = {}): SpeechDocument {
  const doc = isSsml(text, opts.textType) ? parseSsml(text, opts) : parsePlainText(text, opts);
  if (opts.inventory) checkDocumentPhonemes(doc, opts.inventory);
  return doc;
}

interface Context {
  prosody: Prosody;
  emphasis: EmphasisLevel | null;
  lang: string | null;
}

/** An SSML document (root <speak>) as a SpeechDocument. */
export function parseSsml(text: string, opts: Pick<ParseOptions, 'limits'> = {}): SpeechDocument {
  const root = readXml(text, opts.limits ?? XML_LIMITS);
  if (root.name !== 'speak') throw ssmlError(`the root element must be <speak>, not <${root.name}>`, root.at);
  const items: SpeechItem[] = [];
  const lang = langOf(root, null);
  walkChildren(root, { prosody: NEUTRAL_PROSODY, emphasis: null, lang }, items);
  return { markup: 'ssml', lang, items };
}

function attr(el: XmlElement, name: string): string | undefined {
  return el.attrs.get(name)?.value;
}

function required(el: XmlElement, name: string): string {
  const v = attr(el, name);
  if (v === undefined || v.trim() === '') throw ssmlError(`<${el.name}> needs the attribute ${name}`, el.at);
  return v;
}

function langOf(el: XmlElement, inherited: string | null): string | null {
  const v = attr(el, 'xml:lang');
  if (v === undefined) return inherited;
  if (!LANG_TAG.test(v.trim())) throw ssmlError(`xml:lang="${v}" of <${el.name}> is not a language tag (ar, en-US)`, el.attrs.get('xml:lang')!.at);
  return v.trim();
}

function checkElement(el: XmlElement): void {
  const allowed = ATTRIBUTES[el.name];
  if (!allowed) throw ssmlError(`unsupported tag <${el.name}> (supported: ${SUPPORTED_ELEMENTS.join(', ')})`, el.at);
  for (const [name, a] of el.attrs) {
    if (name === 'xmlns' || name.startsWith('xmlns:') || allowed.includes(name)) continue;
    throw ssmlError(`unsupported attribute ${name} on <${el.name}> (it takes: ${allowed.join(', ') || 'none'})`, a.at);
  }
  if (EMPTY.has(el.name) && el.children.some((c) => c.type === 'element' || c.text.trim() !== '')) throw ssmlError(`<${el.name}> must be empty`, el.at);
  if (TEXT_ONLY.has(el.name)) {
    const child = el.children.find((c) => c.type === 'element');
    if (child) throw ssmlError(`<${el.name}> takes text only, not <${(child as XmlElement).name}>`, (child as XmlElement).at);
  }
}

const textOf = (el: XmlElement) => el.children.map((c) => (c as XmlText).text).join('');
const collapse = (s: string) => s.replace(/\s+/gu, ' ');

function run(origin: SpokenRun['origin'], text: string, spoken: string, span: SpokenRun['source'], ctx: Context): SpokenRun {
  return { kind: 'speech', text, spoken, origin, source: span, prosody: ctx.prosody, emphasis: ctx.emphasis, lang: ctx.lang };
}

function walkChildren(el: XmlElement, ctx: Context, items: SpeechItem[]): void {
  for (const child of el.children) {
    if (child.type === 'text') {
      if (child.text) items.push(run('text', collapse(child.text), collapse(child.text), spanOf(child.at, child.end), ctx));
      continue;
    }
    walkElement(child, ctx, items);
  }
}

function walkElement(el: XmlElement, ctx: Context, items: SpeechItem[]): void {
  checkElement(el);
  const at = where(el.at);
  const span = spanOf(el.at, el.end);
  switch (el.name) {
    case 'speak':
      throw ssmlError('<speak> inside <speak>', el.at);
    case 'p':
    case 's':
      walkChildren(el, { ...ctx, lang: langOf(el, ctx.lang) }, items);
      items.push({ kind: 'boundary', level: el.name === 'p' ? 'paragraph' : 'sentence', source: span });
      return;
    case 'lang': {
      if (attr(el, 'xml:lang') === undefined) throw ssmlError('<lang> needs the attribute xml:lang', el.at);
      walkChildren(el, { ...ctx, lang: langOf(el, ctx.lang) }, items);
      return;
    }
    case 'break':
      items.push({ kind: 'break', ms: breakMs(attr(el, 'time'), attr(el, 'strength'), at), source: span });
      return;
    case 'mark': {
      const name = required(el, 'name');
      if (name.length > MAX_MARK_NAME) throw ssmlError(`<mark> name is longer than ${MAX_MARK_NAME} characters`, el.at);
      items.push({ kind: 'mark', name, source: span });
      return;
    }
    case 'prosody': {
      const rate = attr(el, 'rate');
      const pitch = attr(el, 'pitch');
      const volume = attr(el, 'volume');
      const inner: Partial<Prosody> = {
        ...(rate !== undefined && { rate: parseRate(rate, at) }),
        ...(pitch !== undefined && { pitchSemitones: parsePitch(pitch, at) }),
        ...(volume !== undefined && { volumeDb: parseVolume(volume, at) }),
      };
      walkChildren(el, { ...ctx, prosody: nestProsody(ctx.prosody, inner, at) }, items);
      return;
    }
    case 'emphasis': {
      const level = parseEmphasis(attr(el, 'level'), at);
      walkChildren(el, { ...ctx, emphasis: level, prosody: nestProsody(ctx.prosody, emphasisProsody(level), at) }, items);
      return;
    }
    case 'say-as': {
      const interpretAs = required(el, 'interpret-as').trim();
      if (!(SAY_AS_TYPES as readonly string[]).includes(interpretAs)) {
        throw ssmlError(`unsupported interpret-as="${interpretAs}" on <say-as> (supported: ${SAY_AS_TYPES.join(', ')})`, el.attrs.get('interpret-as')!.at);
      }
      const content = textOf(el);
      const detail = attr(el, 'detail') ?? attr(el, 'gender');
      const format = attr(el, 'format');
      const words = expandSayAs(content, { interpretAs: interpretAs as SayAsType, ...(format !== undefined && { format }), ...(detail !== undefined && { detail }) }, at);
      items.push(run('say-as', words, collapse(content), span, ctx));
      return;
    }
    case 'sub': {
      const alias = collapse(required(el, 'alias'));
      items.push(run('sub', alias, alias, span, ctx));
      return;
    }
    case 'phoneme': {
      const alphabet = (attr(el, 'alphabet') ?? 'ipa').trim();
      const ph = required(el, 'ph');
      const here = `<phoneme> at ${at}`;
      let passage: string;
      if (alphabet === 'ipa') passage = ipaToXSawt(ph, here);
      else if (alphabet === 'x-sawt') passage = xSawtPassage(ph, here);
      else throw ssmlError(`unsupported alphabet="${alphabet}" on <phoneme> (supported: ipa, x-sawt)`, el.attrs.get('alphabet')!.at);
      items.push(run('phoneme', ` [[${passage}]] `, collapse(textOf(el)), span, ctx));
      return;
    }
  }
}

/** An x-sawt transcription as written, refused when it is not made of x-sawt symbols (or would close the passage). */
export function xSawtPassage(ph: string, here: string): string {
  const words = ph.trim().split(/\s+/u).filter(Boolean);
  if (!words.length) throw errors.validation(`${here}: the phoneme transcription is empty`);
  for (const w of words) {
    const { unknown } = tokenizeWord(w);
    if (unknown !== undefined || w.includes(']]') || w.includes('[[')) {
      throw errors.validation(`${here}: '${unknown ?? ']'}' is not a phoneme symbol of the x-sawt notation (espeak-ng Arabic mnemonics)`);
    }
  }
  return words.join(' ');
}

const PLAIN_BREAK = /<break\b/giu;
const PLAIN_BREAK_TAG = /^<break\s+time\s*=\s*(["'])([^"'<>]*)\1\s*\/?>/iu;

/**
 * Plain text: all of it is text, except <break time="…"/> tags (as ElevenLabs reads them). A
 * `<break` that is not such a tag is a 400 (it was meant as one), never read aloud.
 */
export function parsePlainText(text: string, _opts: Pick<ParseOptions, 'limits'> = {}): SpeechDocument {
  const items: SpeechItem[] = [];
  const lines = new SourceLines(text);
  let last = 0;
  const textRun = (start: number, end: number) => {
    if (end > start) items.push(run('text', text.slice(start, end), text.slice(start, end), spanOf(lines.at(start), end), { prosody: NEUTRAL_PROSODY, emphasis: null, lang: null }));
  };
  for (const m of text.matchAll(PLAIN_BREAK)) {
    const start = m.index;
    if (start < last) continue;
    const tag = PLAIN_BREAK_TAG.exec(text.slice(start, start + 200));
    const at = lines.at(start);
    if (!tag) {
      const closed = /^<break\b[^<>]*>/iu.test(text.slice(start, start + 200));
      throw ssmlError(closed ? '<break> in plain text takes only time="…" (e.g. <break time="1s"/>)' : 'unclosed <break>', at);
    }
    textRun(last, start);
    items.push({ kind: 'break', ms: breakMs(tag[2], undefined, where(at)), source: spanOf(at, start + tag[0].length) });
    last = start + tag[0].length;
  }
  textRun(last, text.length);
  return { markup: 'plain', lang: null, items };
}

/**
 * Every phoneme passage of the document's runs (<phoneme> elements, inline [[…]], dictionary
 * phonemes) checked against what the model can say, each error naming where the run starts,
 * and the per-text cap over all of them together.
 */
export function checkDocumentPhonemes(doc: SpeechDocument, inventory: PhonemeInventory): void {
  for (const item of doc.items) {
    if (item.kind !== 'speech' || !item.text.includes('[[')) continue;
    try {
      checkPhonemePassages(item.text, inventory);
    } catch (e) {
      if (isSawtError(e)) throw errors.validation(`${e.message} (${item.origin === 'phoneme' ? '<phoneme>' : 'text'} at ${where(item.source)})`);
      throw e;
    }
  }
  checkPhonemePassages(doc.items.map((i) => (i.kind === 'speech' ? i.text : ' ')).join(''), inventory);
}
