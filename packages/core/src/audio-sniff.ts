/**
 * What an upload is, from its first bytes only, and the one way uploads reach ffmpeg (`audioSource`):
 * its demuxer forced and alone allowed, local files only, so no playlist, concat or device demuxer can
 * read an upload and none can make ffmpeg open another file or a URL.
 */
import { open } from 'node:fs/promises';
import { errors } from './errors.js';

/** The audio containers uploads may use. */
export type AudioContainer = 'wav' | 'mp3' | 'flac' | 'ogg' | 'matroska' | 'mp4' | 'aac' | 'amr';

/** ffmpeg's demuxer for each container. */
export const AUDIO_DEMUXERS: Readonly<Record<AudioContainer, string>> = {
  wav: 'wav', mp3: 'mp3', flac: 'flac', ogg: 'ogg', matroska: 'matroska', mp4: 'mov', aac: 'aac', amr: 'amr',
};

/** An upload as ffmpeg may read it: its path and the input arguments that pin its format. */
export interface AudioSource {
  readonly path: string;
  /** The container found in the bytes, or 'pcm16' for headerless PCM16 mono. */
  readonly container: AudioContainer | 'pcm16';
  /** The ffmpeg/ffprobe input arguments, ending with `-i file:<path>`. */
  readonly inputArgs: readonly string[];
}

/** At most this many ID3v2 tags in a row are skipped before the audio is judged. */
const MAX_ID3_TAGS = 4;

/** The container of `b` (bytes at the start of the file, or just after an ID3v2 tag); null when none is recognised. */
function containerAt(b: Buffer): AudioContainer | null {
  if (b.length < 4) return null;
  const s4 = b.toString('latin1', 0, 4);
  if ((s4 === 'RIFF' || s4 === 'RIFX' || s4 === 'RF64' || s4 === 'BW64') && b.length >= 12 && b.toString('latin1', 8, 12) === 'WAVE') return 'wav';
  if (s4 === 'fLaC') return 'flac';
  if (s4 === 'OggS') return 'ogg';
  if (b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return 'matroska';
  if (b.length >= 8 && b.toString('latin1', 4, 8) === 'ftyp') return 'mp4';
  if (b.length >= 6 && b.toString('latin1', 0, 5) === '#!AMR') return 'amr';
  // MPEG audio frame sync: 11 set bits. Layer bits 00 is ADTS (AAC), 01..11 MPEG layers III..I.
  if (b[0] === 0xff && (b[1]! & 0xe0) === 0xe0) {
    const layer = (b[1]! >> 1) & 3;
    if (layer === 0) {
      // ADTS: 12 set bits, a sampling index below 13, a frame length that holds its header.
      const sfi = (b[2]! >> 2) & 0x0f;
      const frameLen = b.length >= 6 ? ((b[3]! & 3) << 11) | (b[4]! << 3) | (b[5]! >> 5) : 7;
      return (b[1]! & 0xf0) === 0xf0 && sfi < 13 && frameLen >= 7 ? 'aac' : null;
    }
    const version = (b[1]! >> 3) & 3;
    const bitrate = b[2]! >> 4;
    const rate = (b[2]! >> 2) & 3;
    return version !== 1 && bitrate !== 15 && rate !== 3 ? 'mp3' : null;
  }
  return null;
}

/** The length of the ID3v2 tag at the start of `b` (header, body and footer), or 0 when there is none. */
function id3Length(b: Buffer): number {
  if (b.length < 10 || b.toString('latin1', 0, 3) !== 'ID3' || b[3] === 0xff || b[4] === 0xff) return 0;
  const size = [b[6]!, b[7]!, b[8]!, b[9]!];
  if (size.some((x) => x & 0x80)) return 0;
  const body = (size[0]! << 21) | (size[1]! << 14) | (size[2]! << 7) | size[3]!;
  return 10 + body + (b[5]! & 0x10 ? 10 : 0);
}

const KBPS: Record<string, number[]> = {
  v1l1: [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  v1l2: [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  v1l3: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2l1: [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  v2l23: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const MPEG_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** The length of the MPEG audio or ADTS frame whose header starts `b`; 0 when unknown (free format). */
function frameLength(b: Buffer, c: 'mp3' | 'aac'): number {
  if (c === 'aac') return ((b[3]! & 3) << 11) | (b[4]! << 3) | (b[5]! >> 5);
  const version = (b[1]! >> 3) & 3; // 3: MPEG-1, 2: MPEG-2, 0: MPEG-2.5
  const layer = 4 - ((b[1]! >> 1) & 3); // 1, 2 or 3
  const kbps = (version === 3 ? KBPS[`v1l${layer}`] : KBPS[layer === 1 ? 'v2l1' : 'v2l23'])![b[2]! >> 4]!;
  const rate = MPEG_RATES[version]![(b[2]! >> 2) & 3]!;
  const padding = (b[2]! >> 1) & 1;
  if (!kbps) return 0;
  if (layer === 1) return (Math.floor((12 * kbps * 1000) / rate) + padding) * 4;
  return Math.floor(((layer === 3 && version !== 3 ? 72 : 144) * kbps * 1000) / rate) + padding;
}

/** The audio container of a file, from its bytes (ID3v2 tags before MP3, AAC or FLAC are skipped); null when it is none of them. */
export async function sniffAudioFile(path: string): Promise<AudioContainer | null> {
  const fh = await open(path, 'r');
  const at = async (offset: number): Promise<Buffer> => {
    const b = Buffer.alloc(16);
    const { bytesRead } = await fh.read(b, 0, b.length, offset);
    return b.subarray(0, bytesRead);
  };
  try {
    let offset = 0;
    for (let tags = 0; tags <= MAX_ID3_TAGS; tags++) {
      const head = await at(offset);
      const skip = id3Length(head);
      if (skip) {
        offset += skip;
        continue;
      }
      const c = containerAt(head);
      // After an ID3 tag only the containers that carry one are taken.
      if (offset > 0 && c !== 'mp3' && c !== 'aac' && c !== 'flac') return null;
      if (c === 'mp3' || c === 'aac') {
        // Frame sync is a weak signature (headerless PCM can start with it): the next frame must follow
        // where this one ends, unless the file ends there.
        const len = frameLength(head, c);
        if (len) {
          const next = await at(offset + len);
          if (next.length > 0 && (next.length < 6 || containerAt(next) !== c || (next[1]! & 0xfe) !== (head[1]! & 0xfe))) return null;
        }
      }
      return c;
    }
    return null;
  } finally {
    await fh.close();
  }
}

/** ffmpeg input arguments that read `path` as `container` and nothing else. */
export function audioInputArgs(path: string, container: AudioContainer | 'pcm16', raw: { sampleRate: number } = { sampleRate: 24000 }): string[] {
  const demuxer = container === 'pcm16' ? 's16le' : AUDIO_DEMUXERS[container];
  return [
    '-protocol_whitelist', 'file', '-format_whitelist', demuxer,
    ...(container === 'pcm16' ? ['-ar', String(raw.sampleRate), '-ac', '1'] : []),
    // A MOV/MP4 "data reference" can name another file: never followed (the default, pinned).
    ...(container === 'mp4' ? ['-enable_drefs', '0'] : []),
    '-f', demuxer, '-i', `file:${path}`,
  ];
}

/** Whether headerless bytes can be PCM16 audio rather than text or another document (used when no container is recognised). */
export function plausibleRawPcm16(head: Buffer, totalBytes: number): boolean {
  if (totalBytes < 4800 || totalBytes % 2 !== 0 || head.length < 2) return false;
  let printable = 0;
  for (const b of head) if ((b >= 0x20 && b < 0x7f) || b === 0x0a || b === 0x0d || b === 0x09) printable++;
  if (printable / head.length > 0.9) return false;
  // Document signatures.
  const sig = head.subarray(0, 4).toString('latin1');
  if (['%PDF', 'PK\u0003\u0004', '\u0089PNG', 'GIF8', '\u007fELF'].includes(sig) || (head[0] === 0xff && head[1] === 0xd8)) return false;
  return true;
}

/**
 * The upload `file` as an AudioSource: its container from its bytes, else (with
 * `rawPcm16`) headerless PCM16 mono at that rate when the bytes can be that; else a
 * 40001 with `notAudioMessage`.
 */
export async function audioSource(
  file: { path: string; bytes: number; head?: Buffer },
  opts: { notAudioMessage: string; rawPcm16?: { sampleRate: number } },
): Promise<AudioSource> {
  const container = await sniffAudioFile(file.path).catch(() => null);
  if (container) return { path: file.path, container, inputArgs: audioInputArgs(file.path, container) };
  if (opts.rawPcm16 && file.head && plausibleRawPcm16(file.head, file.bytes)) {
    return { path: file.path, container: 'pcm16', inputArgs: audioInputArgs(file.path, 'pcm16', opts.rawPcm16) };
  }
  throw errors.validation(opts.notAudioMessage);
}

/** `source` read as headerless PCM16 mono instead (for bytes that looked like a container but were not one). */
export function asRawPcm16(source: AudioSource, sampleRate: number): AudioSource {
  return { path: source.path, container: 'pcm16', inputArgs: audioInputArgs(source.path, 'pcm16', { sampleRate }) };
}
