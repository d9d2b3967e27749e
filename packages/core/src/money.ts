/**
 * Money is stored and computed as integer micro-units (1 unit = 1,000,000 micro).
 * Decimal amounts cross the boundary only here.
 */
export const MICRO_PER_UNIT = 1_000_000;

/** Parses a decimal amount ("12.5", 12.5) into micro-units; throws on more than 6 decimals or non-finite input. */
export function toMicro(amount: string | number): number {
  const text = typeof amount === 'number' ? numberToPlain(amount) : amount.trim();
  const m = /^(-)?(\d+)(?:\.(\d{1,6}))?$/.exec(text);
  if (!m) throw new RangeError(`Expected a decimal amount with at most 6 decimals but received ${JSON.stringify(amount)}`);
  const micro = Number(m[2]) * MICRO_PER_UNIT + Number((m[3] ?? '').padEnd(6, '0'));
  if (!Number.isSafeInteger(micro)) throw new RangeError(`Amount ${text} is too large`);
  return m[1] ? -micro : micro;
}

/** Micro-units to a JSON number of units (exact for every value we can store). */
export function fromMicro(micro: number): number {
  return Number(formatMicro(micro));
}

/** Micro-units to a plain decimal string without trailing zeros: 1500000 → "1.5". */
export function formatMicro(micro: number): string {
  const sign = micro < 0 ? '-' : '';
  const abs = Math.abs(micro);
  const whole = Math.floor(abs / MICRO_PER_UNIT);
  const frac = String(abs % MICRO_PER_UNIT).padStart(6, '0').replace(/0+$/, '');
  return frac ? `${sign}${whole}.${frac}` : `${sign}${whole}`;
}

function numberToPlain(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  // toFixed(6) then strip: avoids exponent notation for small costs like 1e-5.
  return n.toFixed(6).replace(/\.?0+$/, '');
}
