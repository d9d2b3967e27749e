import { open } from 'node:fs/promises';

/**
 * A streamed FLAC's STREAMINFO says 0 total samples, so players show no duration: a spooled one gets
 * its total (the last frame's, found by its CRC-16 ending the file) written into STREAMINFO.
 */
export async function setFlacTotalSamples(file: string): Promise<void> {
  const fh = await open(file, 'r+');
  try {
    const { size } = await fh.stat();
    const head = Buffer.alloc(42);
    await fh.read(head, 0, 42, 0);
    // 'fLaC', then STREAMINFO (type 0, 34 bytes) first.
    if (size < 42 || head.toString('latin1', 0, 4) !== 'fLaC' || (head[4]! & 0x7f) !== 0) return;
    const tailLength = Math.min(size - 42, 1 << 16);
    const tail = Buffer.alloc(tailLength);
    await fh.read(tail, 0, tailLength, size - tailLength);
    // A fixed-blocksize stream numbers its frames; all but the last hold STREAMINFO's block size.
    const total = lastFrameEnd(tail, head.readUInt16BE(8));
    if (total === null || total >= 2 ** 36) return;
    // STREAMINFO bytes 13-17 (file 21-25): the low 4 bits of byte 13 and 4 bytes hold the total.
    const field = Buffer.alloc(5);
    field[0] = (head[21]! & 0xf0) | Math.floor(total / 2 ** 32);
    field.writeUInt32BE(total % 2 ** 32, 1);
    await fh.write(field, 0, 5, 21);
  } finally {
    await fh.close();
  }
}

/** The sample after the last frame of `tail` (the file's last bytes), or null if no frame is found; `nominal`: the stream's block size. */
function lastFrameEnd(tail: Buffer, nominal: number): number | null {
  const crc = tail.readUInt16BE(tail.length - 2);
  for (let p = tail.length - 4; p >= 0; p--) {
    if (tail[p] !== 0xff || (tail[p + 1]! & 0xfe) !== 0xf8) continue;
    const header = frameHeader(tail, p, nominal);
    if (header && crc16(tail, p, tail.length - 2) === crc) return header.first + header.blockSize;
  }
  return null;
}

/** The frame header at `p`: its first sample and block size, or null if it is not one (its CRC-8 fails). */
function frameHeader(b: Buffer, p: number, nominal: number): { first: number; blockSize: number } | null {
  const variable = (b[p + 1]! & 1) === 1;
  const sizeCode = b[p + 2]! >> 4;
  const rateCode = b[p + 2]! & 0x0f;
  if (sizeCode === 0 || rateCode === 15 || (b[p + 3]! & 1) !== 0) return null;
  let q = p + 4;
  // The frame (or sample) number, UTF-8 coded.
  const lead = b[q];
  if (lead === undefined) return null;
  let extra = 0;
  while (extra < 7 && (lead & (0x80 >> extra)) !== 0) extra++;
  if (extra === 1 || extra > 7) return null;
  const bytes = extra === 0 ? 0 : extra - 1;
  let n = extra === 0 ? lead : lead & (0xff >> (extra + 1));
  q++;
  for (let i = 0; i < bytes; i++, q++) {
    const c = b[q];
    if (c === undefined || (c & 0xc0) !== 0x80) return null;
    n = n * 64 + (c & 0x3f);
  }
  let blockSize: number;
  if (sizeCode === 1) blockSize = 192;
  else if (sizeCode <= 5) blockSize = 576 << (sizeCode - 2);
  else if (sizeCode === 6) blockSize = (b[q++] ?? 0) + 1;
  else if (sizeCode === 7) {
    blockSize = (((b[q] ?? 0) << 8) | (b[q + 1] ?? 0)) + 1;
    q += 2;
  } else blockSize = 256 << (sizeCode - 8);
  if (rateCode === 12) q += 1;
  else if (rateCode === 13 || rateCode === 14) q += 2;
  if (q >= b.length || crc8(b, p, q) !== b[q]) return null;
  return { first: variable ? n : n * nominal, blockSize };
}

function crc8(b: Buffer, from: number, to: number): number {
  let c = 0;
  for (let i = from; i < to; i++) {
    c ^= b[i]!;
    for (let k = 0; k < 8; k++) c = c & 0x80 ? ((c << 1) ^ 0x07) & 0xff : (c << 1) & 0xff;
  }
  return c;
}

function crc16(b: Buffer, from: number, to: number): number {
  let c = 0;
  for (let i = from; i < to; i++) {
    c ^= b[i]! << 8;
    for (let k = 0; k < 8; k++) c = c & 0x8000 ? ((c << 1) ^ 0x8005) & 0xffff : (c << 1) & 0xffff;
  }
  return c;
}
