import { HARAKAT, KEEP_END, KEEP_START, stripDiacritics } from './diacritize.js';
import { mapTextParts } from './raw.js';

/**
 * Pronunciation lexicon: whole words replaced by text or [[phonemes]], matched as written, then without
 * diacritics, in lower case, after clitics (text only). A diacritized replacement is kept as written.
 */
const WORD = /[\p{L}\p{M}\p{N}_]+/gu;
/** و/ف, then ب/ك/ل, then the article (لل = لِ + ال): what may be written before a lexicon word. */
const CLITICS = /^(?:[وف]?(?:[بكل]?ال|لل|[بكل])|[وف])/u;

export class Lexicon {
  private readonly entries = new Map<string, string>();

  constructor(...maps: Array<Record<string, string> | undefined>) {
    // Earlier maps win (operator entries before dialect entries).
    for (const map of maps.reverse()) {
      for (const [word, replacement] of Object.entries(map ?? {})) {
        const r = replacement.normalize('NFC');
        const keep = HARAKAT.test(r.replace(/\[\[[\s\S]*?\]\]/gu, ''));
        this.entries.set(word.normalize('NFC').trim(), keep ? `${KEEP_START}${r}${KEEP_END}` : r);
      }
    }
  }

  get size(): number {
    return this.entries.size;
  }

  lookup(word: string): string | undefined {
    const found = this.entries.get(word) ?? this.entries.get(stripDiacritics(word)) ?? this.entries.get(word.toLowerCase());
    if (found !== undefined) return found;
    // The entry with clitics written before it (وصوت، بالصوت، لذلك): the clitics stay text, read with it.
    const bare = stripDiacritics(word);
    const m = CLITICS.exec(bare);
    if (!m || m[0] === bare) return undefined;
    const entry = this.entries.get(bare.slice(m[0].length));
    return entry !== undefined && !entry.includes('[[') ? m[0] + entry : undefined;
  }

  apply(text: string): Promise<string> {
    if (this.entries.size === 0) return Promise.resolve(text);
    return mapTextParts(text, (part) => part.replace(WORD, (w) => this.lookup(w) ?? w));
  }
}
