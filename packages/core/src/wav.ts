/** RIFF/WAVE header for PCM16 little-endian audio. */
export function wavHeader(dataBytes: number, sampleRate: number, channels = 1): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * channels * 2, 28);
  h.writeUInt16LE(channels * 2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** A complete WAV file from PCM16 chunks. */
export function encodeWav(chunks: Buffer[], sampleRate: number, channels = 1): Buffer {
  const bytes = chunks.reduce((n, c) => n + c.length, 0);
  return Buffer.concat([wavHeader(bytes, sampleRate, channels), ...chunks], 44 + bytes);
}

export { PCM_CONTENT_TYPE } from '@sawt/protocol';
