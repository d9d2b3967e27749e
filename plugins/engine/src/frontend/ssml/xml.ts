/**
 * A small XML reader for SSML, safe by construction: it knows no DTD, so it can expand no
 * external entity (XXE) and no entity defined in terms of others (billion laughs). Only XML's
 * five named entities and numeric character references are decoded; `<!DOCTYPE`, other `<!`
 * declarations and processing instructions are refused. Nesting depth and element count are
 * capped. Every error is a 400 / 40001 naming the line:column and the tag.
 */
import { errors, type SawtError } from '@sawt/core';

export interface XmlLimits {
  /** Deepest nesting of elements (the root counts as 1). */
  readonly maxDepth: number;
  /** Elements in the whole document. */
  readonly maxElements: number;
}

export const XML_LIMITS: XmlLimits = { maxDepth: 32, maxElements: 1000 };

/** Where something starts in the source: offset (UTF-16 code units), line and column (1-based). */
export interface SourcePoint {
  offset: number;
  line: number;
  column: number;
}

export interface XmlAttribute {
  value: string;
  at: SourcePoint;
}

export interface XmlElement {
  type: 'element';
  name: string;
  attrs: Map<string, XmlAttribute>;
  children: XmlNode[];
  /** The start of the start tag. */
  at: SourcePoint;
  /** Offset just past the end tag (or the empty tag). */
  end: number;
}

export interface XmlText {
  type: 'text';
  /** The text with its references decoded. */
  text: string;
  /** Offsets of the text in the source, as written. */
  start: number;
  end: number;
  at: SourcePoint;
}

export type XmlNode = XmlElement | XmlText;

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const NAME_START = /[A-Za-z_:]/u;
const NAME = /[A-Za-z0-9_:.-]/u;

/** Line and column of offsets of one source (line starts found once). */
export class SourceLines {
  private readonly starts: number[] = [0];

  constructor(readonly source: string) {
    for (let i = 0; i < source.length; i++) if (source.charCodeAt(i) === 10) this.starts.push(i + 1);
  }

  at(offset: number): SourcePoint {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { offset, line: lo + 1, column: offset - this.starts[lo]! + 1 };
  }
}

/** The 400 for bad SSML, with the place: "SSML: unclosed <break> at 1:23". */
export function ssmlError(message: string, at: SourcePoint): SawtError {
  return errors.validation(`SSML: ${message} at ${at.line}:${at.column}`);
}

/** Reads `source` (a whole XML document) into its root element. */
export function readXml(source: string, limits: XmlLimits = XML_LIMITS): XmlElement {
  return new XmlReader(source, limits).document();
}

class XmlReader {
  private pos = 0;
  private elements = 0;
  private readonly lines: SourceLines;

  constructor(private readonly src: string, private readonly limits: XmlLimits) {
    this.lines = new SourceLines(src);
  }

  private fail(message: string, offset = this.pos): never {
    throw ssmlError(message, this.lines.at(offset));
  }

  document(): XmlElement {
    if (this.src.charCodeAt(0) === 0xfeff) this.pos = 1;
    this.skipSpace();
    if (this.src.startsWith('<?xml', this.pos) && /[\s?]/u.test(this.src[this.pos + 5] ?? '')) {
      const end = this.src.indexOf('?>', this.pos);
      if (end < 0) this.fail('unterminated XML declaration <?xml');
      this.pos = end + 2;
    }
    let root: XmlElement | null = null;
    const stack: XmlElement[] = [];
    while (this.pos < this.src.length) {
      const top = stack[stack.length - 1];
      if (this.src[this.pos] !== '<') {
        const text = this.text();
        if (top) top.children.push(text);
        else if (text.text.trim() !== '') this.fail(root ? 'text after the root element' : 'text before the root element', text.start);
        continue;
      }
      if (this.src.startsWith('<!--', this.pos)) {
        const end = this.src.indexOf('-->', this.pos + 4);
        if (end < 0) this.fail('unclosed comment <!--');
        this.pos = end + 3;
        continue;
      }
      if (this.src.startsWith('<![CDATA[', this.pos)) {
        const start = this.pos;
        const end = this.src.indexOf(']]>', this.pos);
        if (end < 0) this.fail('unclosed <![CDATA[ section');
        if (!top) this.fail('a CDATA section outside the root element');
        top.children.push({ type: 'text', text: this.src.slice(start + 9, end), start: start + 9, end, at: this.lines.at(start + 9) });
        this.pos = end + 3;
        continue;
      }
      if (this.src.startsWith('<!', this.pos)) {
        // DTDs are where XXE and billion-laughs entities are declared: none is read.
        const what = /^<!([A-Za-z]*)/u.exec(this.src.slice(this.pos, this.pos + 20))![1];
        this.fail(`<!${what}> is not accepted (no DTD or entity declarations are read)`);
      }
      if (this.src.startsWith('<?', this.pos)) this.fail('processing instructions (<?…?>) are not accepted');
      if (this.src.startsWith('</', this.pos)) {
        const at = this.pos;
        this.pos += 2;
        const name = this.name('a closing tag');
        this.skipSpace();
        if (this.src[this.pos] !== '>') this.fail(`malformed closing tag </${name}`, at);
        this.pos++;
        if (!top) this.fail(`</${name}> closes no element`, at);
        if (top.name !== name) {
          if (stack.some((e) => e.name === name)) this.fail(`unclosed <${top.name}>`, top.at.offset);
          this.fail(`</${name}> does not close <${top.name}> (opened at ${top.at.line}:${top.at.column})`, at);
        }
        top.end = this.pos;
        stack.pop();
        continue;
      }
      if (!top && root) this.fail('a second root element', this.pos);
      const { element, empty } = this.startTag(stack.length + 1);
      if (top) top.children.push(element);
      else root = element;
      if (!empty) stack.push(element);
    }
    if (stack.length) this.fail(`unclosed <${stack[stack.length - 1]!.name}>`, stack[stack.length - 1]!.at.offset);
    if (!root) this.fail('no root element', 0);
    return root;
  }

  private skipSpace(): void {
    while (this.pos < this.src.length && /\s/u.test(this.src[this.pos]!)) this.pos++;
  }

  private name(what: string): string {
    const start = this.pos;
    if (!NAME_START.test(this.src[this.pos] ?? '')) this.fail(`expected the name of ${what}`);
    while (this.pos < this.src.length && NAME.test(this.src[this.pos]!)) this.pos++;
    return this.src.slice(start, this.pos);
  }

  private startTag(depth: number): { element: XmlElement; empty: boolean } {
    const at = this.lines.at(this.pos);
    this.pos++;
    const name = this.name('a tag');
    if (++this.elements > this.limits.maxElements) this.fail(`more than ${this.limits.maxElements} elements (<${name}>)`, at.offset);
    if (depth > this.limits.maxDepth) this.fail(`<${name}> nests deeper than ${this.limits.maxDepth} elements`, at.offset);
    const attrs = new Map<string, XmlAttribute>();
    for (;;) {
      const before = this.pos;
      this.skipSpace();
      if (this.pos >= this.src.length) this.fail(`unclosed <${name}>`, at.offset);
      if (this.src.startsWith('/>', this.pos)) {
        this.pos += 2;
        return { element: { type: 'element', name, attrs, children: [], at, end: this.pos }, empty: true };
      }
      if (this.src[this.pos] === '>') {
        this.pos++;
        return { element: { type: 'element', name, attrs, children: [], at, end: this.pos }, empty: false };
      }
      if (this.pos === before || !NAME_START.test(this.src[this.pos]!)) this.fail(`unclosed <${name}>`, at.offset);
      const attrAt = this.lines.at(this.pos);
      const attr = this.name(`an attribute of <${name}>`);
      this.skipSpace();
      if (this.src[this.pos] !== '=') this.fail(`attribute ${attr} of <${name}> needs a quoted value`, attrAt.offset);
      this.pos++;
      this.skipSpace();
      const quote = this.src[this.pos];
      if (quote !== '"' && quote !== "'") this.fail(`attribute ${attr} of <${name}> needs a quoted value`, attrAt.offset);
      const close = this.src.indexOf(quote, this.pos + 1);
      if (close < 0) this.fail(`unclosed <${name}>`, at.offset);
      const raw = this.src.slice(this.pos + 1, close);
      const lt = raw.indexOf('<');
      if (lt >= 0) this.fail(`'<' in the value of attribute ${attr} of <${name}> (unclosed quote?)`, this.pos + 1 + lt);
      if (attrs.has(attr)) this.fail(`attribute ${attr} given twice on <${name}>`, attrAt.offset);
      attrs.set(attr, { value: this.decode(raw, this.pos + 1), at: attrAt });
      this.pos = close + 1;
    }
  }

  private text(): XmlText {
    const start = this.pos;
    const lt = this.src.indexOf('<', this.pos);
    const end = lt < 0 ? this.src.length : lt;
    this.pos = end;
    const raw = this.src.slice(start, end);
    const gt = raw.indexOf(']]>');
    if (gt >= 0) this.fail("']]>' in text", start + gt);
    return { type: 'text', text: this.decode(raw, start), start, end, at: this.lines.at(start) };
  }

  /** Decodes the five named entities and numeric references of `raw` (which starts at `offset`). */
  private decode(raw: string, offset: number): string {
    if (!raw.includes('&')) return raw;
    return raw.replace(/&([^;\s&<]{0,12})(;?)/gu, (_all, ref: string, semi: string, i: number) => {
      if (!semi) this.fail("'&' must be written &amp;", offset + i);
      const numeric = /^#(?:x([0-9A-Fa-f]{1,6})|([0-9]{1,7}))$/u.exec(ref);
      if (numeric) {
        const cp = numeric[1] !== undefined ? parseInt(numeric[1], 16) : Number(numeric[2]);
        const legal = cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
        if (!legal) this.fail(`&${ref}; is not a character XML allows`, offset + i);
        return String.fromCodePoint(cp);
      }
      const named = NAMED_ENTITIES[ref];
      if (named === undefined) this.fail(`unknown entity &${ref}; (entities are not expanded; only &amp; &lt; &gt; &quot; &apos; and &#…; are read)`, offset + i);
      return named;
    });
  }
}
