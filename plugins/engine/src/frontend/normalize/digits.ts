/**
 * Digit systems: Arabic-Indic (٠–٩) and Persian/Urdu (۰–۹) digits become
 * Western digits, with the Arabic decimal (٫) and thousands (٬) separators and
 * the Arabic percent sign (٪) and per-mille sign (؉). Thousands separators inside numbers are removed,
 * a decimal comma becomes a point, and a percent sign written first goes after its number.
 */
const ARABIC_INDIC = /[\u0660-\u0669]/gu;
const PERSIAN = /[\u06f0-\u06f9]/gu;

export function toWesternDigits(text: string): string {
  return text
    .replace(ARABIC_INDIC, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(PERSIAN, (d) => String(d.charCodeAt(0) - 0x06f0))
    .replace(/(\d)\u066b(?=\d)/gu, '$1.')
    .replace(/\u066a/gu, '%')
    .replace(/\u0609/gu, '‰')
    .replace(/(\d)\u066c(?=\d{3})/gu, '$1,');
}

/** 1,234,567 → 1234567 (only well-formed groups of three). */
export function stripThousands(text: string): string {
  return text.replace(/(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d]|,\d)/gu, (m) => m.replace(/,/gu, ''));
}

/**
 * The decimal comma of Arabic and European writing: one comma between digits, with no space on
 * either side and not one of a chain (4,75 → 4.75; ٤٫٧٥ is already a point). Run after
 * stripThousands, so a comma before three digits has been read as a thousands separator. A list is
 * written with spaces or as a chain (1، 2، 3 / 1,2,3) and stays a list.
 */
export function decimalComma(text: string): string {
  return text.replace(/(?<![\d.,،])(\d+)[,،](\d+)(?![\d]|[.,،]\d)/gu, '$1.$2');
}

/**
 * Percent and per-mille signs written before the number (%12، ‰5, as right-to-left typing often
 * leaves them) are moved after it, where the number reader reads them (اثنا عشر بالمئة).
 */
export function signsAfter(text: string): string {
  return text.replace(/(?<![\d.])([%‰])\s?([-−]?\d+(?:\.\d+)?)(?![\d.%‰])/gu, '$2$1');
}
