/**
 * URLs and e-mail addresses, read as people say them: "www" as دبليو دبليو دبليو, each dot as
 * نقطة, "@" as آت, "/" as سلاش, "-" as داش and "_" as أندرسكور; the scheme (https://) is not said,
 * and a query or fragment (?…, #…) or a long path is left out (nobody reads it aloud). The Latin
 * parts are left for the engine's Latin reader (spelled or read as words by its rules); digits
 * inside are read one by one.
 */
import { digitByDigit } from './cardinals.js';

const TLD = 'com|net|org|info|io|ai|app|dev|gov|edu|sa|ae|eg|qa|kw|bh|om|jo|lb|ma|tn|dz|iq|sy|ps|ly|sd|ye|me|co|uk|fr|de|tv';
/** The longest path read aloud (/ar، /docs/api); longer ones are left out. */
const MAX_PATH = 24;

const part = (p: string) =>
  p
    .replace(/-+/gu, ' داش ')
    .replace(/_+/gu, ' أندرسكور ')
    .replace(/\+/gu, ' بلس ')
    .replace(/\d+/gu, (d) => ` ${digitByDigit(d)} `)
    .replace(/\s+/gu, ' ')
    .trim();
/** A host or user name: its parts joined by نقطة; a leading www is spelled. */
const words = (s: string) =>
  s
    .split(/[.]/u)
    .filter(Boolean)
    .map((p) => (/^www$/iu.test(p) ? 'دبليو دبليو دبليو' : part(p)))
    .join(' نقطة ');

/** A short path of plain segments, read with سلاش; anything else, nothing. */
function pathWords(path: string): string {
  const p = path.replace(/\/+$/u, '');
  if (!p || p.length > MAX_PATH || !/^(?:\/[A-Za-z0-9_-]+)+$/u.test(p)) return '';
  return p.split('/').filter(Boolean).map((seg) => ` سلاش ${part(seg)}`).join('');
}

export function normalizeUrls(text: string): string {
  text = text.replace(/(?<![\w.])([\w.+-]+)@([\w-]+(?:\.[\w-]+)+)/gu, (_all, user, host) => ` ${words(user)} آت ${words(host)} `);
  text = text.replace(/\b(?:https?:\/\/|ftp:\/\/|www\.)[^\s<>"'«»()،]+/giu, (all) => {
    const url = all.replace(/[.,;:!?؟]+$/u, '');
    const trail = all.slice(url.length);
    const rest = url.replace(/^[a-z]+:\/\//iu, '');
    const host = rest.split(/[/?#:]/u)[0]!.replace(/[.,;!?]+$/u, '');
    const path = /^[^/?#]*(\/[^?#]*)?/u.exec(rest)?.[1] ?? '';
    return ` ${words(host)}${pathWords(path)}${trail} `;
  });
  return text.replace(new RegExp(`(?<![\\w@.])((?:[a-z0-9-]+\\.)+(?:${TLD}))(/[^\\s<>"'«»()،]*)?(?![\\w])`, 'giu'), (_all, host, path: string | undefined) => {
    const p = (path ?? '').replace(/[.,;:!?؟]+$/u, '');
    return ` ${words(host)}${pathWords(p.split(/[?#]/u)[0]!)}${(path ?? '').slice(p.length)} `;
  });
}
