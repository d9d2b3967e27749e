/**
 * URLs and e-mail addresses, read without the garbage: the scheme, "www." and
 * any path or query are dropped; the host's dots become "دوت" and "@" becomes
 * "آت" (e-mails keep their user part). Latin words are left for the engine's
 * English voice; digits inside are read one by one.
 */
import { digitByDigit } from './cardinals.js';

const TLD = 'com|net|org|info|io|ai|app|dev|gov|edu|sa|ae|eg|qa|kw|bh|om|jo|lb|ma|tn|dz|iq|sy|ps|ly|sd|ye|me|co|uk|fr|de|tv';
const words = (s: string) =>
  s
    .split(/[.]/u)
    .filter(Boolean)
    .map((p) => p.replace(/[-_+]+/gu, ' ').replace(/\d+/gu, (d) => ` ${digitByDigit(d)} `).replace(/\s+/gu, ' ').trim())
    .join(' دوت ');

export function normalizeUrls(text: string): string {
  text = text.replace(/(?<![\w.])([\w.+-]+)@([\w-]+(?:\.[\w-]+)+)/gu, (_all, user, host) => `${words(user)} آت ${words(host)}`);
  text = text.replace(/\b(?:https?:\/\/|ftp:\/\/|www\.)[^\s<>"'«»()،]+/giu, (all) => {
    const url = all.replace(/[.,;:!?؟]+$/u, '');
    const trail = all.slice(url.length);
    const host = url.replace(/^[a-z]+:\/\//iu, '').replace(/^www\./iu, '').split(/[/?#:]/u)[0]!.replace(/[.,;!?]+$/u, '');
    return ` ${words(host)}${trail} `;
  });
  return text.replace(new RegExp(`(?<![\\w@.])((?:[a-z0-9-]+\\.)+(?:${TLD}))(?:/[^\\s<>"'«»()،]*)?(?![\\w])`, 'giu'), (_all, host) => ` ${words(host)} `);
}
