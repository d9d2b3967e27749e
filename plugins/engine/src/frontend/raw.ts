/** Raw phoneme spans ([[ … ]]) pass through every text stage untouched: stages see only the text between them. */
export const RAW_SPAN = /\[\[[\s\S]*?\]\]/gu;

export function hasRawSpan(text: string): boolean {
  return /\[\[[\s\S]*?\]\]/u.test(text);
}

/** Splits into alternating text and raw parts (raw parts keep their brackets). */
export function splitRaw(text: string): Array<{ raw: boolean; text: string }> {
  const parts: Array<{ raw: boolean; text: string }> = [];
  let last = 0;
  for (const m of text.matchAll(RAW_SPAN)) {
    if (m.index! > last) parts.push({ raw: false, text: text.slice(last, m.index) });
    parts.push({ raw: true, text: m[0] });
    last = m.index! + m[0].length;
  }
  if (last < text.length) parts.push({ raw: false, text: text.slice(last) });
  return parts;
}

/** Applies `fn` to the text between raw spans, keeping each piece's edge white space (stages may trim). */
export async function mapTextParts(text: string, fn: (text: string) => string | Promise<string>): Promise<string> {
  const parts = splitRaw(text);
  if (parts.length === 1 && !parts[0]!.raw) return fn(text);
  const out = await Promise.all(
    parts.map(async (p) => {
      if (p.raw || p.text.trim() === '') return p.text;
      const lead = /^\s*/u.exec(p.text)![0];
      const trail = /\s*$/u.exec(p.text)![0];
      return lead + (await fn(p.text.trim())) + trail;
    }),
  );
  return out.join('');
}

/** Replaces raw spans with placeholders free of spaces and punctuation (for segmentation). */
export function protectRaw(text: string): { text: string; restore: (s: string) => string } {
  const spans: string[] = [];
  const protectedText = text.replace(RAW_SPAN, (m) => `\ue000${spans.push(m) - 1}\ue001`);
  return { text: protectedText, restore: (s) => s.replace(/\ue000(\d+)\ue001/gu, (_m, i: string) => spans[Number(i)]!) };
}
