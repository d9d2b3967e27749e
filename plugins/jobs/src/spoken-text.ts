/**
 * What of a submitted text is spoken (and billed): Markdown markup is dropped (headings keep
 * their words, links their label, images their alt text), and where its chapters start.
 */

export interface Chapter {
  title: string;
  /** Offset (UTF-16 index) of the chapter's first character in the spoken text. */
  at: number;
}

export interface SpokenText {
  text: string;
  chapters: Chapter[];
}

export type TextFormat = 'auto' | 'plain' | 'markdown';

/** Lines that only Markdown writes: ATX headings, fences, links, emphasis, list items, rules. */
const MARKDOWN_SIGNS = /^ {0,3}#{1,6}\s|^ {0,3}(```|~~~)|\[[^\]\n]+\]\([^)\n]+\)|\*\*[^*\n]+\*\*|^ {0,3}[-*+]\s+\S|^ {0,3}(-{3,}|\*{3,}|_{3,})\s*$|^ {0,3}>\s/m;

export function looksLikeMarkdown(text: string): boolean {
  return MARKDOWN_SIGNS.test(text);
}

const SENTENCE_END = /[.!?؟۔…:]["»”')\]]*$/u;
const TITLE_MAX = 80;

function clipTitle(line: string): string {
  const t = line.replace(/\s+/gu, ' ').trim();
  return t.length > TITLE_MAX ? `${t.slice(0, TITLE_MAX - 1)}…` : t;
}

/** Inline Markdown to its words: images to alt text, links to labels, code spans and emphasis unwrapped, HTML tags dropped. */
function inline(line: string): string {
  return line
    .replace(/!\[([^\]]*)\]\([^)]*\)/gu, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/gu, '$1')
    .replace(/\[([^\]]+)\]\[[^\]]*\]/gu, '$1')
    .replace(/<(https?:|mailto:)[^>]*>/giu, '')
    .replace(/<\/?[A-Za-z][^>]*>/gu, '')
    .replace(/`+([^`]*)`+/gu, '$1')
    .replace(/(\*\*|__)(?=\S)([^*_]*?\S)\1/gu, '$2')
    .replace(/(^|[^\p{L}\p{N}*])[*_](?=\S)([^*_]*?\S)[*_](?![\p{L}\p{N}])/gu, '$1$2')
    .replace(/~~(?=\S)([^~]*?\S)~~/gu, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!>|])/gu, '$1');
}

/**
 * The spoken text of Markdown: one line per block line, a heading made its own sentence (a
 * full stop added when it has none) and a chapter; reference definitions, fences, rules and
 * table rules dropped; list and quote markers removed; table cells separated by commas.
 */
function fromMarkdown(source: string): SpokenText {
  const lines = source.split(/\r\n?|\n/u);
  const out: string[] = [];
  const chapters: Chapter[] = [];
  let length = 0;
  const push = (line: string, chapter?: string) => {
    if (chapter) chapters.push({ title: clipTitle(chapter), at: length + (line.length - line.trimStart().length) });
    out.push(line);
    length += line.length + 1;
  };
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    if (/^ {0,3}(```|~~~)/u.test(raw)) continue;
    if (/^ {0,3}\[[^\]]+\]:\s*\S+/u.test(raw)) continue;
    if (/^ {0,3}([-*_])( *\1){2,} *$/u.test(raw)) continue;
    if (/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/u.test(raw)) continue;
    const next = lines[i + 1];
    const setext = next !== undefined && raw.trim() !== '' && /^ {0,3}(=+|-+)\s*$/u.test(next);
    const atx = /^ {0,3}#{1,6}\s+(.*?)(\s+#+\s*)?$/u.exec(raw);
    if (atx || setext) {
      const words = inline(atx ? atx[1]! : raw.trim()).trim();
      if (setext) i++;
      if (words) push(SENTENCE_END.test(words) ? words : `${words}.`, words);
      continue;
    }
    let line = raw.replace(/^ {0,3}(> ?)+/u, '').replace(/^\s*([-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?/u, '');
    if (/^\s*\|.*\|\s*$/u.test(line)) line = line.trim().replace(/^\||\|$/gu, '').split('|').map((c) => c.trim()).filter(Boolean).join('، ');
    push(inline(line));
  }
  return { text: out.join('\n'), chapters };
}

/** Chapters of plain text: each section after a blank line, titled by its first line. */
function plainChapters(text: string): Chapter[] {
  const chapters: Chapter[] = [];
  for (const m of text.matchAll(/(?:^|\n[ \t]*\n)\s*(\S[^\n]*)/gu)) {
    const at = m.index + m[0].length - m[1]!.length;
    chapters.push({ title: clipTitle(m[1]!), at });
  }
  return chapters;
}

/** The spoken text and chapters of a submitted text (`auto`: Markdown when it looks like it). */
export function spokenText(source: string, format: TextFormat): SpokenText {
  const markdown = format === 'markdown' || (format === 'auto' && looksLikeMarkdown(source));
  if (markdown) {
    const md = fromMarkdown(source);
    // Markdown without headings has its sections like plain text.
    return md.chapters.length ? md : { text: md.text, chapters: plainChapters(md.text) };
  }
  const text = source.replace(/\r\n?/gu, '\n');
  return { text, chapters: plainChapters(text) };
}
