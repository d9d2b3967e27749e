// Refusals that happen before any route runs (the router, Node's HTTP parser, the
// WebSocket handshake) over raw sockets: each answers {errorCode, errorMessage} as
// JSON with an x-request-id, and echoes nothing of the request back.
import net from 'node:net';
import t from 'tap';
import { startServer, SENTENCE } from '../helpers/server.js';
import { wsConfig } from '../helpers/ws.js';

const srv = await startServer(t, { config: wsConfig() });
const { port } = new URL(srv.base);
const { headers } = await srv.client();

/** Sends raw bytes; resolves with the first response parsed (status, headers, body) once it is complete or the socket closes. */
function raw(bytes) {
  return new Promise((resolve, reject) => {
    const s = net.connect(Number(port), '127.0.0.1');
    let buf = Buffer.alloc(0);
    const done = () => {
      const text = buf.toString('utf8');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return false;
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const h = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const body = buf.subarray(Buffer.byteLength(text.slice(0, end + 4)));
      if (h['content-length'] !== undefined && body.length < Number(h['content-length'])) return false;
      s.destroy();
      resolve({ status: Number(statusLine.split(' ')[1]), headers: h, body: body.toString('utf8'), raw: text });
      return true;
    };
    s.on('data', (d) => { buf = Buffer.concat([buf, d]); done(); });
    s.on('close', () => done() || reject(new Error(`closed without a response: ${JSON.stringify(buf.toString())}`)));
    s.on('error', () => {});
    s.write(bytes);
  });
}

async function expectShape(t, res, status, code, marker) {
  t.equal(res.status, status, `status ${status}`);
  t.match(res.headers['content-type'], /^application\/json/);
  t.match(res.headers['x-request-id'], /^[0-9a-f-]{36}$/, 'x-request-id');
  const body = JSON.parse(res.body);
  t.same(Object.keys(body).sort(), ['errorCode', 'errorMessage']);
  t.equal(body.errorCode, code, `errorCode ${code}`);
  t.type(body.errorMessage, 'string');
  if (marker) t.notOk(res.raw.includes(marker), 'nothing of the request is echoed back');
  return body;
}

const get = (path, extra = '') => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${extra}\r\n`;

t.test('FST_ERR_BAD_URL: a path that is not valid percent-encoded UTF-8 is 400 40001', async (t) => {
  await expectShape(t, await raw(get('/api/v1/voices/%ff%fe/sample')), 400, 40001, '%ff%fe');
});

t.test('a 3,000-character voice id is 414 41401, without the id in the answer', async (t) => {
  const id = 'q'.repeat(3000);
  const body = await expectShape(t, await raw(get(`/api/v1/voices/${id}/sample`)), 414, 41401, 'qqqqqqqqqq');
  t.match(body.errorMessage, /too long/);
});

t.test('huge headers are 431 43101 and the connection closes', async (t) => {
  const res = await raw(get('/api/v1/models', `x-big: ${'z'.repeat(20_000)}\r\n`));
  await expectShape(t, res, 431, 43101, 'zzzzzzzz');
  t.equal(res.headers.connection, 'close');
});

t.test("requests Node's parser refuses are 400 40001", async (t) => {
  for (const bytes of ['HELLO\r\n\r\n', 'GET /api/v1/models HTTP/1.1\r\nHost: x\r\nBad Header<script>: y\r\n\r\n', 'BREW /api/v1/models HTTP/1.1\r\nHost: x\r\n\r\n',
    'POST /api/v1/text-to-speech/sawt-mini HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nnot-a-chunk<script>\r\n']) {
    await expectShape(t, await raw(bytes), 400, 40001, '<script>');
  }
});

t.test('bad JSON, a wrong content type and an unknown route answer in the shape, echoing nothing', async (t) => {
  const post = (ct, body) => `POST /api/v1/text-to-speech/sawt-mini HTTP/1.1\r\nHost: x\r\nx-api-key: ${headers['x-api-key']}\r\nContent-Type: ${ct}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  await expectShape(t, await raw(post('application/json', '{"text": "<script>')), 400, 40001, '<script>');
  await expectShape(t, await raw(post('application/json', '')), 400, 40001);
  await expectShape(t, await raw(post('text/x-evil<script>', '{}')), 400, 40001, '<script>');
  await expectShape(t, await raw(post('application/json', '"<script>"')), 400, 40001, '<script>');
  await expectShape(t, await raw(get('/api/v1/<script>alert(1)</script>')), 404, 40401, '<script>');
  await expectShape(t, await raw(get('/elsewhere/<b>x</b>')), 404, 40401, '<b>');
  await expectShape(t, await raw(`DELETE /api/v1/models HTTP/1.1\r\nHost: x\r\nx-api-key: ${headers['x-api-key']}\r\n\r\n`), 404, 40401);
});

t.test('an unknown voice id of any length is named, but clipped', async (t) => {
  const id = `v${'x'.repeat(2999)}`;
  const res = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: id, text: SENTENCE, stability: 0.5, streaming: false }) });
  t.equal(res.status, 404);
  const body = await res.json();
  t.equal(body.errorCode, 40401);
  t.ok(body.errorMessage.startsWith(`Voice '${id.slice(0, 100)}…'`), 'the first 100 characters');
  t.ok(body.errorMessage.length < 200);
});

t.test('refused WebSocket upgrades answer in the shape too', async (t) => {
  const upgrade = (path, key = 'dGhlIHNhbXBsZSBub25jZQ==') => `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${key}\r\n\r\n`;
  await expectShape(t, await raw(upgrade('/api/v1/websocket/elsewhere<script>')), 404, 40401, '<script>');
  await expectShape(t, await raw(upgrade('/api/v1/websocket/text-to-speech', 'not-a-key')), 400, 40001, 'not-a-key');
});
