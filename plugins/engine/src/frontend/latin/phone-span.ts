/** A word given as HTS phones inside front-end text (one token: private-use delimiters, phones joined by '_'), read by hts/labels.ts. */
const START = '\ue010';
const END = '\ue011';
const SPAN = /^\ue010([A-Za-z^_]+)\ue011$/u;

export function htsPhoneSpan(phones: readonly string[]): string {
  return `${START}${phones.join('_')}${END}`;
}

/** The phones of a token that is a phone span, else null. */
export function htsSpanPhones(token: string): string[] | null {
  const m = SPAN.exec(token);
  return m ? m[1]!.split('_').filter(Boolean) : null;
}

/** True when `text` holds at least one phone span. */
export function hasHtsSpan(text: string): boolean {
  return text.includes(START);
}
