import type { ServerResponse } from 'node:http';

/**
 * Whether a response's bytes all left this process. 'finish' says so; a socket
 * that closes right after the client read the last byte can be noticed before
 * the final write callback runs, so a response that was ended with nothing left
 * in its buffer counts as delivered too. Billing settles on true, releases on false.
 */
export function isDelivered(res: ServerResponse, sent?: { bytes: number; contentLength: number }): boolean {
  if (res.writableFinished || (res.writableEnded && res.writableLength === 0)) return true;
  // With a Content-Length the client may close as soon as it has every byte,
  // before the last write's 'end' reached the response: all bytes written and
  // none left buffered is delivery too.
  return sent !== undefined && sent.bytes >= sent.contentLength && res.writableLength === 0;
}

/** Resolves once the response finished or closed, with isDelivered() at that moment. */
export function whenDelivered(res: ServerResponse): Promise<boolean> {
  if (res.writableFinished || res.destroyed) return Promise.resolve(isDelivered(res));
  return new Promise((resolve) => {
    const done = () => {
      res.off('finish', done);
      res.off('close', done);
      resolve(isDelivered(res));
    };
    res.once('finish', done);
    res.once('close', done);
  });
}
