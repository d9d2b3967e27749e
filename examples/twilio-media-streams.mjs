// A telephone bridge: answers a Twilio Media Streams WebSocket and speaks a text into the call
// with μ-law 8 kHz from Sawt (the HTTP stream with output_format=ulaw_8000, sent on as it arrives).
//   SAWT_URL=http://127.0.0.1:8080 SAWT_API_KEY=sawt_… PORT=8081 node examples/twilio-media-streams.mjs
// Options (environment): SAWT_VOICE (default fusha-omar), SAWT_MODEL (sawt-mini), SAWT_GREETING (the
// text spoken when the stream starts), HOST (127.0.0.1; 0.0.0.0 to listen on every address).
// Twilio: put the bridge behind a public wss:// address (a reverse proxy with TLS, or a tunnel)
// and answer the call with this TwiML (GET /twiml here returns it for the request's Host):
//   <Response><Connect><Stream url="wss://YOUR-HOST/media"/></Connect></Response>
// Messages (Twilio's Media Streams format): in: connected, start {streamSid}, media (the caller's
// μ-law, ignored here: plug speech recognition in at onCallerAudio), mark (played back), stop;
// out: media {streamSid, media: {payload: base64 μ-law}} and a mark after each text, which Twilio
// echoes once the caller has heard it all.
import http from 'node:http';
import WebSocket, { WebSocketServer } from 'ws';
import { SawtClient } from '@sawt/client';

const apiKey = process.env.SAWT_API_KEY;
if (!apiKey) {
  console.error('usage: SAWT_API_KEY=… [SAWT_URL=…] [PORT=8081] node examples/twilio-media-streams.mjs');
  process.exit(2);
}
const sawt = new SawtClient({ baseUrl: process.env.SAWT_URL ?? 'http://127.0.0.1:8080', apiKey, retry: { maxRetries: 2 } });
const voiceId = process.env.SAWT_VOICE ?? 'fusha-omar';
const modelId = process.env.SAWT_MODEL ?? 'sawt-mini';
const greeting = process.env.SAWT_GREETING ?? 'مرحبا بكم في خدمة صوت. كيف يمكننا مساعدتكم اليوم؟';
/** Twilio plays 20 ms frames of 160 μ-law bytes; whole frames are sent, the rest at the end. */
const FRAME = 160;

const server = http.createServer((req, res) => {
  if (req.url === '/twiml') {
    res.writeHead(200, { 'content-type': 'text/xml' });
    res.end(`<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="wss://${req.headers.host}/media"/></Connect></Response>`);
  } else {
    res.writeHead(404).end();
  }
});
const wss = new WebSocketServer({ server, path: '/media' });

wss.on('connection', (ws) => {
  let streamSid = null;
  let marks = 0;
  const send = (msg) => { if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg)); };

  /** Speaks `text` into the call: μ-law frames as Sawt generates them, then a mark. */
  async function speak(text) {
    const stream = sawt.streamTextToSpeech(modelId, { voice_id: voiceId, text, stability: 0.5, output_format: 'ulaw_8000' });
    let pending = Buffer.alloc(0);
    for await (const chunk of stream) {
      if (ws.readyState !== WebSocket.OPEN) break;  // the call ended: breaking out cancels the request
      pending = Buffer.concat([pending, chunk]);
      const whole = pending.length - (pending.length % FRAME);
      if (whole > 0) {
        send({ event: 'media', streamSid, media: { payload: pending.subarray(0, whole).toString('base64') } });
        pending = pending.subarray(whole);
      }
    }
    if (pending.length) send({ event: 'media', streamSid, media: { payload: pending.toString('base64') } });
    send({ event: 'mark', streamSid, mark: { name: `said-${++marks}` } });
  }

  function onCallerAudio(mulaw) { return mulaw; }  // where speech recognition of the caller would go

  ws.on('message', (data) => {
    let msg;
    try { msg = JSON.parse(String(data)); } catch { return; }
    switch (msg.event) {
      case 'start':
        streamSid = msg.start?.streamSid ?? msg.streamSid;
        console.log(`call ${msg.start?.callSid ?? '?'} stream ${streamSid}: speaking`);
        speak(greeting).catch((e) => console.error(`stream ${streamSid}: ${e.message}`));
        break;
      case 'media':
        if (msg.media?.track !== 'outbound') onCallerAudio(Buffer.from(msg.media?.payload ?? '', 'base64'));
        break;
      case 'mark':
        console.log(`stream ${streamSid}: the caller heard ${msg.mark?.name}`);
        break;
      case 'stop':
        console.log(`stream ${streamSid}: stopped`);
        ws.close();
        break;
      default:  // connected, dtmf
    }
  });
});

server.listen(Number(process.env.PORT ?? 8081), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address();
  console.log(`Twilio Media Streams bridge on ws://${address}:${port}/media (TwiML at http://${address}:${port}/twiml)`);
});
const stop = () => { wss.close(); server.close(() => process.exit(0)); };
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
