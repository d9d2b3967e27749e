/**
 * Reused buffers for outgoing audio messages: a message built as a string was copied twice more and was
 * most of what the process allocated (measured: 4 GB in 30 s of 30 sessions); a fresh buffer per message
 * would make V8 collect the whole heap far more often. One never given back is collected like any other.
 */

/** Smallest and largest pooled size (bytes, powers of two); larger messages get a buffer of their own. */
const MIN_POOLED = 16 * 1024;
const MAX_POOLED = 512 * 1024;
/** Free buffers kept per size, so that a burst does not pin its peak for ever. */
const KEEP_PER_SIZE = 32;

export class MessageBuffers {
  private readonly free = new Map<number, ArrayBuffer[]>();

  /** A buffer of exactly `bytes` bytes (a view of a pooled one when it fits); its content is undefined. */
  take(bytes: number): Buffer {
    const size = pooledSize(bytes);
    if (size === 0) return Buffer.allocUnsafeSlow(bytes);
    const backing = this.free.get(size)?.pop() ?? new ArrayBuffer(size);
    return Buffer.from(backing, 0, bytes);
  }

  /** Gives back a buffer from take() once nothing will read it again. */
  give(buf: Buffer): void {
    const backing = buf.buffer;
    if (!(backing instanceof ArrayBuffer) || buf.byteOffset !== 0 || pooledSize(backing.byteLength) !== backing.byteLength) return;
    let list = this.free.get(backing.byteLength);
    if (!list) this.free.set(backing.byteLength, (list = []));
    if (list.length < KEEP_PER_SIZE) list.push(backing);
  }
}

/** The pooled size for a message of `bytes` (0: not pooled). */
function pooledSize(bytes: number): number {
  if (bytes > MAX_POOLED) return 0;
  let size = MIN_POOLED;
  while (size < bytes) size *= 2;
  return size;
}

/** The buffers of every session of the process (messages of all sessions leave from one thread). */
export const messageBuffers = new MessageBuffers();
