// examples/twilio-media-streams.mjs run as written, against a server, driven by a local client
// that speaks Twilio's Media Streams messages: connected and start in; media (base64 μ-law
// 8 kHz, decoded by ffmpeg) and a mark out; stop ends the stream.
import { spawn } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import WebSocket from 'ws';
import { SawtClient } from '@sawt/client';
import { repoRoot, startServer } from '../helpers/server.js';
import { decode, FORMATS } from '../formats/decode.js';

const srv = await startServer(t);
const { key } = await srv.client({ plan: 'enterprise', balance: '100' });
const greeting = 'أهلا وسهلا بكم في مركز الاتصال، كيف نخدمكم؟';
const ulaw = FORMATS.find((f) => f.name === 'ulaw_8000');

const child = spawn(process.execPath, [path.join(repoRoot, 'examples/twilio-media-streams.mjs')], {
  cwd: repoRoot, env: { ...process.env, SAWT_URL: srv.base, SAWT_API_KEY: key.key, PORT: '0', SAWT_GREETING: greeting }, stdio: ['ignore', 'pipe', 'pipe'],
});
t.teardown(() => child.kill('SIGTERM'));
let log = '';
child.stderr.on('data', (d) => { log += d; });
const url = await new Promise((resolve, reject) => {
  child.stdout.on('data', (d) => {
    log += d;
    const m = /on (ws:\/\/\S+\/media)/.exec(log);
    if (m) resolve(m[1]);
  });
  child.on('exit', (code) => reject(new Error(`the example exited (${code}): ${log}`)));
});

t.test('a call: the greeting as μ-law media frames, then a mark; stop ends the stream', async (t) => {
  const ws = new WebSocket(url);
  const got = [];
  const closed = new Promise((resolve) => ws.on('close', resolve));
  const marked = new Promise((resolve) => ws.on('message', (data) => {
    const msg = JSON.parse(String(data));
    got.push(msg);
    if (msg.event === 'mark') resolve(msg);
  }));
  await new Promise((resolve) => ws.on('open', resolve));
  ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
  ws.send(JSON.stringify({
    event: 'start', sequenceNumber: '1', streamSid: 'MZ0001',
    start: { streamSid: 'MZ0001', accountSid: 'AC0001', callSid: 'CA0001', tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
  }));
  // The caller's audio goes in meanwhile (200 ms of μ-law silence).
  ws.send(JSON.stringify({ event: 'media', sequenceNumber: '2', streamSid: 'MZ0001', media: { track: 'inbound', chunk: '1', timestamp: '5', payload: Buffer.alloc(1600, 0xff).toString('base64') } }));
  const mark = await marked;
  t.equal(mark.streamSid, 'MZ0001');
  t.type(mark.mark?.name, 'string', `mark ${mark.mark?.name}`);
  const media = got.filter((m) => m.event === 'media');
  t.ok(media.length >= 1, `${media.length} media messages`);
  t.ok(media.every((m) => m.streamSid === 'MZ0001' && typeof m.media?.payload === 'string'), 'each names the stream and carries a payload');
  t.equal(got.at(-1), mark, 'the mark comes after the media');
  const bytes = Buffer.concat(media.map((m) => Buffer.from(m.media.payload, 'base64')));
  t.ok(media.slice(0, -1).every((m) => Buffer.from(m.media.payload, 'base64').length % 160 === 0), 'whole 20 ms frames');
  const d = await decode(bytes, ulaw);
  t.equal(d.codec, 'pcm_mulaw');
  t.equal(d.sampleRate, 8000);
  t.ok(d.rms > 300, `audible (rms ${d.rms.toFixed(0)})`);
  // The same text spoken whole in μ-law: the call got all of it.
  const whole = await new SawtClient({ baseUrl: srv.base, apiKey: key.key }).textToSpeech('sawt-mini', { voice_id: 'fusha-omar', text: greeting, stability: 0.5, output_format: 'ulaw_8000' });
  t.ok(Math.abs(bytes.length - whole.length) <= 160, `${(bytes.length / 8000).toFixed(3)} s on the call, ${(whole.length / 8000).toFixed(3)} s spoken whole`);
  ws.send(JSON.stringify({ event: 'stop', sequenceNumber: '3', streamSid: 'MZ0001', stop: { accountSid: 'AC0001', callSid: 'CA0001' } }));
  await closed;
  t.pass('the bridge closed the stream after stop');
});

t.test('GET /twiml answers the call with a Connect Stream to /media', async (t) => {
  const res = await fetch(url.replace('ws://', 'http://').replace('/media', '/twiml'));
  t.equal(res.status, 200);
  t.match(await res.text(), /<Connect><Stream url="wss:\/\/[^"]+\/media"\/><\/Connect>/);
});
