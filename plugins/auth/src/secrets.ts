import { createHash, randomBytes } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const KEY_PREFIX = 'sawt_';
const SECRET_CHARS = 40;
/** How much of the secret is stored in clear to identify a key in listings. */
export const DISPLAY_PREFIX_LENGTH = 12;
export const SECRET_PATTERN = new RegExp(`^${KEY_PREFIX}[A-Za-z0-9]{${SECRET_CHARS}}$`);

/** `sawt_` + 40 base62 characters (~238 bits), drawn without modulo bias. */
export function generateSecret(): string {
  let out = KEY_PREFIX;
  while (out.length < KEY_PREFIX.length + SECRET_CHARS) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 × 62: bytes above it would favour the first characters.
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === KEY_PREFIX.length + SECRET_CHARS) break;
    }
  }
  return out;
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
