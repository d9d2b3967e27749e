// WebSocket connection hygiene: a socket that never sends initConnection is
// closed; open connections per key and per address are capped; text with
// nothing speakable is 40001 as over HTTP, not an empty final message.
import t from 'tap';
import WebSocket from 'ws';
import { SENTENCE, pollUntil, startServer } from '../helpers/server.js';
import { connect, ready, wsConfig } from '../helpers/ws.js';

function config(options) {
  const c = wsConfig();
  const ws = c.plugins.find((p) => p.resolve === '@sawt/plugin-transport-ws');
  ws.options = { ...ws.options, ...options };
  return c;
}

/** The HTTP answer to an upgrade the server refuses: { status, body }. */
function refusedUpgrade(srv) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${srv.base.replace('http', 'ws')}/api/v1/websocket/text-to-speech`);
    ws.on('open', () => (ws.terminate(), reject(new Error('the upgrade was accepted'))));
    ws.on('error', () => {});
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(body) }));
    });
  });
}

t.test('no initConnection within initTimeoutMs: error 40001, close 1008; an initialized connection stays usable', async (t) => {
  const srv = await startServer(t, { config: config({ initTimeoutMs: 500 }) });
  const { key } = await srv.client();
  const silent = connect(srv, { query: `?x-api-key=${key.key}` });
  await silent.opened;
  const inited = await ready(srv, key.key);
  t.equal(await silent.until(() => silent.closeCode, 30_000), 1008, 'the silent one is closed with 1008');
  t.match(silent.errors(), [{ errorCode: 40001, errorMessage: /No initConnection within 0.5 s/ }]);

  // Past the init timeout (the silent connection, opened first, is closed) the initialized one still speaks.
  inited.send({ type: 'text', text: SENTENCE, flush: true });
  await inited.until(() => inited.audio().find((m) => m.isFinal) || inited.closeCode);
  t.ok(inited.audio().at(-1)?.isFinal, 'the initialized connection got its audio');
  t.equal(inited.closeCode, null, 'and is open');
  inited.ws.close();
});

t.test('open connections per key and per address are capped', async (t) => {
  const srv = await startServer(t, { config: config({ maxConnectionsPerKey: 2, maxConnectionsPerAddress: 3, initTimeoutMs: 60_000 }) });
  const { key } = await srv.client();
  const other = await srv.client();
  const a = await ready(srv, key.key);
  const b = await ready(srv, key.key);
  const c = await ready(srv, key.key);
  t.match(c.errors(), [{ errorCode: 42901, errorMessage: /at most 2/ }], 'a third connection of the key: 42901');
  t.equal(await c.closed, 1008);

  const d = await ready(srv, other.key.key);
  t.ok(d.messages.some((m) => m.type === 'connectionInitialized'), 'another key on the same address: third connection');
  const refused = await refusedUpgrade(srv);
  t.equal(refused.status, 429, 'a fourth connection from the address is refused at the upgrade');
  t.match(refused.body, { errorCode: 42901, errorMessage: /address: at most 3/ });

  a.ws.close();
  await a.closed;
  // The server frees the place once it has seen the close too.
  const e = await pollUntil('a place for the key', async () => {
    const x = await ready(srv, key.key);
    if (x.messages.some((m) => m.type === 'connectionInitialized')) return x;
    x.ws.close();
    return null;
  }, 10_000, 50);
  t.ok(e.messages.some((m) => m.type === 'connectionInitialized'), 'a closed connection frees its place');
  for (const x of [b, d, e]) x.ws.close();
});

t.test('text with nothing speakable: 40001 like HTTP, no empty final', async (t) => {
  const srv = await startServer(t, { config: wsConfig() });
  const { key, headers } = await srv.client();
  const text = '... !!! ؟؟؟ ،،، ---';
  const http = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'fusha-omar', text, stability: 0.5, streaming: false }) });
  t.equal(http.status, 400);
  const httpError = await http.json();
  const c = await ready(srv, key.key);
  c.send({ type: 'text', text, flush: true });
  const err = await c.until(() => c.errors()[0]);
  t.same({ errorCode: err.errorCode, errorMessage: err.errorMessage }, httpError, 'the same error as HTTP');
  t.same(c.audio(), [], 'no audio message, no empty isFinal');
  t.equal(c.closeCode, null, 'the connection stays open');
  c.ws.close();
});
