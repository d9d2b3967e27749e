/**
 * Digit systems: Arabic-Indic (٠–٩) and Persian/Urdu (۰–۹) digits become
 * Western digits, with the Arabic decimal (٫) and thousands (٬) separators and
 * the Arabic percent sign (٪). Thousands separators inside numbers are removed.
 */
const ARABIC_INDIC = /[\u0660-\u0669]/gu;
const PERSIAN = /[\u06f0-\u06f9]/gu;

export function toWesternDigits(text: string): string {
  return text
    .replace(ARABIC_INDIC, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(PERSIAN, (d) => String(d.charCodeAt(0) - 0x06f0))
    .replace(/(\d)\u066b(?=\d)/gu, '$1.')
    .replace(/\u066a/gu, '%')
    .replace(/(\d)\u066c(?=\d{3})/gu, '$1,');
}

/** 1,234,567 → 1234567 (only well-formed groups of three; 1,5 stays a list). */
export function stripThousands(text: string): string {
  return text.replace(/(?<![\d.,])\d{1,3}(?:,\d{3})+(?![\d]|,\d)/gu, (m) => m.replace(/,/gu, ''));
}
