import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import type { WsLimits } from './limits.js';
import { messageBuffers } from './message-buffers.js';
import { SendWindow } from './send-window.js';
import type { WsConnection, WsSession } from './session.js';

/** Runs a session on a WebSocket: messages in, sends counted in a SendWindow (backpressure), pings, and the idle and initConnection timers. */
export function runSession(ws: WebSocket, socket: Socket, limits: WsLimits, open: (conn: WsConnection) => WsSession): WsSession {
  const window = new SendWindow(limits);
  let corked = false;
  // Messages sent in one turn of the event loop leave in one socket write: a write per message was the
  // largest cost of the main thread with many sessions (measured: a third of its busy time).
  const corkForThisTick = () => {
    if (corked || socket.destroyed) return;
    corked = true;
    socket.cork();
    process.nextTick(() => {
      corked = false;
      socket.uncork();
    });
  };
  const session = open({
    send(msg) {
      if (ws.readyState !== ws.OPEN) {
        if (typeof msg !== 'string') messageBuffers.give(msg);
        return Promise.resolve(false);
      }
      corkForThisTick();
      const taken = window.hold(Buffer.byteLength(msg));
      return new Promise((resolve) =>
        ws.send(msg, { binary: false }, (err) => {
          taken();
          if (typeof msg !== 'string') messageBuffers.give(msg);
          resolve(!err);
        }),
      );
    },
    drained: () => window.belowHighWater(),
    close(code, reason) {
      if (ws.readyState === ws.OPEN) ws.close(code, reason);
    },
  });

  let alive = true;
  const heartbeat = setInterval(() => {
    if (!alive) return ws.terminate();
    alive = false;
    ws.ping();
  }, limits.pingIntervalMs).unref();
  const idle = setTimeout(() => session.idle() || idle.refresh(), limits.idleTimeoutMs).unref();
  const init = setTimeout(() => session.initTimedOut(), limits.initTimeoutMs).unref();
  ws.on('message', (data, isBinary) => {
    idle.refresh();
    const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : (data as Buffer | ArrayBuffer).byteLength;
    session.receive(size > limits.maxMessageBytes ? { oversized: size } : isBinary ? null : data.toString());
  });
  ws.on('pong', () => (alive = true));
  ws.on('error', () => {});
  ws.on('close', () => {
    clearInterval(heartbeat);
    clearTimeout(idle);
    clearTimeout(init);
    session.closed();
  });
  return session;
}
