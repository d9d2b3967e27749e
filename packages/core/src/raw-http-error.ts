import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { SawtError } from './errors.js';

/**
 * Answers a refusal on a bare socket, before any HTTP framework has a request
 * object (malformed request line, oversized headers, a refused WebSocket upgrade),
 * in the same shape as every other error: JSON {errorCode, errorMessage} with an
 * x-request-id, then closes the connection. Nothing of the request is echoed.
 */
export function writeRawHttpError(socket: Duplex, e: SawtError, requestId: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ errorCode: e.code, errorMessage: e.message });
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': requestId,
    connection: 'close',
    ...e.headers,
  };
  const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  socket.end(`HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? ''}\r\n${head}\r\n${body}`);
  // A client that never reads must not keep the socket open.
  setTimeout(() => socket.destroy(), 1000).unref();
}
