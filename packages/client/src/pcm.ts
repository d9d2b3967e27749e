import { DEFAULT_SAMPLE_RATE } from '@sawt/protocol';

/** Audio formats of the service: PCM16 little-endian mono, at this rate unless the format names another. */
export const PCM_SAMPLE_RATE = DEFAULT_SAMPLE_RATE;

/** Passes PCM16 bytes on in whole samples (a chunk may end mid-sample: its odd byte waits for the next). */
export class Pcm16Aligner {
  private carry: number | null = null;

  push(chunk: Uint8Array): Uint8Array {
    let bytes = chunk;
    if (this.carry !== null) {
      bytes = new Uint8Array(chunk.length + 1);
      bytes[0] = this.carry;
      bytes.set(chunk, 1);
      this.carry = null;
    }
    if (bytes.length % 2 === 1) {
      this.carry = bytes[bytes.length - 1]!;
      bytes = bytes.subarray(0, bytes.length - 1);
    }
    return bytes;
  }
}

/** A WAV file (PCM16 mono) around raw PCM16 chunks, e.g. to save what a stream or WebSocket delivered. */
export function pcmToWav(chunks: Uint8Array[], sampleRate = PCM_SAMPLE_RATE): Uint8Array {
  const size = chunks.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(44 + size);
  const v = new DataView(out.buffer);
  const ascii = (off: number, s: string) => { for (let i = 0; i < s.length; i++) out[off + i] = s.charCodeAt(i); };
  ascii(0, 'RIFF'); v.setUint32(4, 36 + size, true); ascii(8, 'WAVE');
  ascii(12, 'fmt '); v.setUint32(16, 16, true); v.setUint16(20, 1, true); v.setUint16(22, 1, true);
  v.setUint32(24, sampleRate, true); v.setUint32(28, sampleRate * 2, true); v.setUint16(32, 2, true); v.setUint16(34, 16, true);
  ascii(36, 'data'); v.setUint32(40, size, true);
  let off = 44;
  for (const c of chunks) { out.set(c, off); off += c.length; }
  return out;
}

/** Samples of PCM16 little-endian bytes as floats in [-1, 1) (for Web Audio). */
export function pcm16ToFloat32(bytes: Uint8Array): Float32Array {
  const n = bytes.length >> 1;
  const v = new DataView(bytes.buffer, bytes.byteOffset, n * 2);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = v.getInt16(i * 2, true) / 32768;
  return out;
}

export function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
