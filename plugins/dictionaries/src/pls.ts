/**
 * W3C Pronunciation Lexicon Specification 1.0 files → rules: each <lexeme>'s graphemes get its
 * first <alias> or <phoneme> (whichever comes first, as PLS prefers the first pronunciation);
 * a phoneme's alphabet is its own or the lexicon's, ipa or x-sawt. Read by saxes, which expands
 * no DTD: a DOCTYPE is refused outright and an entity other than XML's five is an error (no XXE,
 * no billion laughs).
 */
import { errors, type PhoneticAlphabet, type PronunciationRule } from '@sawt/core';
import { SaxesParser } from 'saxes';
import { checkRule, PHONETIC_ALPHABETS } from './rules.js';

interface Lexeme {
  line: number;
  graphemes: string[];
  pronunciation: { type: 'alias'; text: string } | { type: 'phoneme'; text: string; alphabet: string } | null;
}

const PLS_NAMESPACE = 'http://www.w3.org/2005/01/pronunciation-lexicon';
/** Elements a lexicon may hold; others (meta, metadata, lexeme's example) are skipped with their text. */
const TEXT_ELEMENTS = new Set(['grapheme', 'alias', 'phoneme']);

export function parsePls(source: string): PronunciationRule[] {
  const fail = (message: string, line: number, column?: number): never => {
    throw errors.validation(`PLS file: ${message} at line ${line}${column === undefined ? '' : `:${column}`}`);
  };
  const parser = new SaxesParser({ position: true });
  const lexemes: Lexeme[] = [];
  const stack: string[] = [];
  let lexiconAlphabet: string | undefined;
  let lexeme: Lexeme | null = null;
  let textOf: { element: string; alphabet?: string; text: string } | null = null;

  parser.on('error', (e) => {
    const message = e.message.replace(/^\d+:\d+: /u, '').replace(/\.$/u, '');
    fail(/undefined entity/u.test(message) ? `${message} (entities are not expanded: only &amp; &lt; &gt; &quot; &apos; and &#…; are read)` : message, parser.line, parser.column + 1);
  });
  parser.on('doctype', () => fail('a DOCTYPE is not accepted (no DTD or entity declarations are read)', parser.line));
  parser.on('processinginstruction', (pi) => {
    if (pi.target !== 'xml') fail(`processing instruction <?${pi.target}?> is not accepted`, parser.line);
  });
  parser.on('opentag', (tag) => {
    const attrs = tag.attributes as Record<string, string>;
    const name = tag.name.replace(/^[^:]*:/u, '');
    if (stack.length === 0) {
      if (name !== 'lexicon') fail(`the root element must be <lexicon>, not <${tag.name}>`, parser.line);
      if (attrs.version !== '1.0') fail('<lexicon> must have version="1.0"', parser.line);
      if (attrs.xmlns !== undefined && attrs.xmlns !== PLS_NAMESPACE) fail(`<lexicon> xmlns must be ${PLS_NAMESPACE}`, parser.line);
      lexiconAlphabet = attrs.alphabet;
    } else if (name === 'lexeme') {
      if (stack.at(-1) !== 'lexicon') fail('<lexeme> must be inside <lexicon>', parser.line);
      lexeme = { line: parser.line, graphemes: [], pronunciation: null };
    } else if (TEXT_ELEMENTS.has(name)) {
      if (!lexeme || stack.at(-1) !== 'lexeme') fail(`<${name}> must be inside <lexeme>`, parser.line);
      textOf = { element: name, ...(attrs.alphabet !== undefined && { alphabet: attrs.alphabet }), text: '' };
    }
    stack.push(name);
  });
  parser.on('text', (t) => {
    if (textOf) textOf.text += t;
  });
  parser.on('cdata', (t) => {
    if (textOf) textOf.text += t;
  });
  parser.on('closetag', (tag) => {
    const name = tag.name.replace(/^[^:]*:/u, '');
    stack.pop();
    if (TEXT_ELEMENTS.has(name) && textOf && lexeme) {
      const value = textOf.text.replace(/\s+/gu, ' ').trim();
      if (name === 'grapheme') lexeme.graphemes.push(value);
      else if (!lexeme.pronunciation) {
        lexeme.pronunciation = name === 'alias' ? { type: 'alias', text: value } : { type: 'phoneme', text: value, alphabet: textOf.alphabet ?? lexiconAlphabet ?? 'ipa' };
      }
      textOf = null;
    } else if (name === 'lexeme' && lexeme) {
      lexemes.push(lexeme);
      lexeme = null;
    }
  });
  parser.write(source).close();

  const rules: PronunciationRule[] = [];
  for (const lx of lexemes) {
    const where = `lexeme at line ${lx.line}`;
    if (!lx.graphemes.length) throw errors.validation(`PLS file: the ${where} has no <grapheme>`);
    const p = lx.pronunciation;
    if (!p) throw errors.validation(`PLS file: the ${where} has no <alias> or <phoneme>`);
    if (p.type === 'phoneme' && !PHONETIC_ALPHABETS.includes(p.alphabet as PhoneticAlphabet)) {
      throw errors.validation(`PLS file: the ${where} uses alphabet '${p.alphabet}'; supported: ${PHONETIC_ALPHABETS.join(', ')}`);
    }
    for (const g of lx.graphemes) {
      rules.push(checkRule(p.type === 'alias' ? { string_to_replace: g, type: 'alias', alias: p.text } : { string_to_replace: g, type: 'phoneme', phoneme: p.text, alphabet: p.alphabet }, `PLS file: the ${where}`));
    }
  }
  return rules;
}
