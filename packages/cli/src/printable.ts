// Terminal-safe human output: values from users or the database may hold ESC sequences that repaint the terminal,
// CR/LF that forge lines or bidi overrides that reorder it. They are printed escaped (JSON.stringify escapes C0 itself).

// C0 controls, DEL, C1 controls, bidi embeddings/overrides/isolates, line and paragraph separators.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\u001b': '\\e' };

function escapeChar(c: string): string {
  const named = NAMED[c];
  if (named) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `value` as one line with every unsafe character written as an escape (\e, \n, \x07, \u202e…). */
export function printable(value: unknown): string {
  return String(value).replace(UNSAFE, escapeChar);
}

/** Template tag: the literal parts are trusted, every interpolated value is made printable. */
export function human(strings: TemplateStringsArray, ...values: unknown[]): string {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? printable(values[i]) : ''), '');
}
