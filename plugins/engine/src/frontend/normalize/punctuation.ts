/**
 * Punctuation turned into the phrase breaks the segmenter and the engine know:
 * Latin , ; ? become ، ؛ ؟; brackets and spaced dashes become ،; quotes and
 * stray symbols (* # _ ~ | < > = •…) are dropped; repeated marks collapse.
 */
export function normalizePunctuation(text: string): string {
  return text
    .replace(/\.{3,}|…+/gu, '…')
    .replace(/,/gu, '،')
    .replace(/;/gu, '؛')
    .replace(/\?/gu, '؟')
    .replace(/[([{]/gu, '، ')
    .replace(/[)\]}]/gu, '، ')
    .replace(/\s[-–—]+\s|[–—]+/gu, '، ')
    .replace(/["“”„«»‹›]|(?<!\p{L})'|'(?!\p{L})/gu, ' ')
    .replace(/\s*&\s*/gu, ' و')
    .replace(/%/gu, ' بالمئة ')
    .replace(/‰/gu, ' بالألف ')
    // a currency sign without an amount is its name
    .replace(/\$/gu, ' دولار ').replace(/€/gu, ' يورو ').replace(/£/gu, ' جنيه ').replace(/¥/gu, ' ين ').replace(/﷼/gu, ' ريال ')
    .replace(/[*#_~^|\\<>=•●▪►✓✔@+/-]/gu, ' ')
    .replace(/\s+([،؛:.!؟…])/gu, '$1')
    .replace(/([!؟])[!؟]+/gu, '$1')
    .replace(/([،؛:.!؟…])(?:\s*[،؛])+/gu, '$1')
    .replace(/[،؛](\s*[.!؟…:])/gu, '$1')
    .replace(/(^|\n)\s*[،؛:.]+/gu, '$1')
    .replace(/\s*[،؛]\s*$/gu, '')
    .replace(/([،؛:!؟…])(?=[\p{L}\p{N}])/gu, '$1 ');
}
