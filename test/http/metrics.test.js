// GET /metrics (Prometheus text format) and the request log: what an operator
// scraping the service or reading its logs sees after real traffic.
import t from 'tap';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startServer, defaultConfigPath, freePort, SENTENCE } from '../helpers/server.js';
import { ready } from '../helpers/ws.js';
import { denoise, noiseDir, hasShared } from '../denoise/helpers.js';

/** A logger that keeps every line (bindings of child loggers merged in). */
function capturingLogger() {
  const lines = [];
  const make = (bindings) => {
    const at = (level) => (obj, msg) => lines.push(typeof obj === 'string' ? { level, ...bindings, msg: obj } : { level, ...bindings, ...obj, msg });
    return { info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug'), child: (b) => make({ ...bindings, ...b }) };
  };
  return { logger: make({}), lines };
}

function config(edit = () => {}) {
  const c = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  edit(c);
  return c;
}

/** Parses the Prometheus text format into [{ name, labels, value }]. */
function parseMetrics(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const labels = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k] = v;
    out.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return out;
}

const value = (metrics, name, labels = {}) =>
  metrics.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);

/** Scrapes until `ready(metrics)` holds (settling follows delivery by a moment), at most 10 s. */
async function scrapeWhen(base, ready) {
  let m = [];
  for (let i = 0; i < 100; i++) {
    m = parseMetrics(await (await fetch(`${base}/metrics`)).text());
    if (ready(m)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return m;
}

const tts = (srv, headers, body) => fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'fusha-omar', stability: 0.5, streaming: true, text: SENTENCE, ...body }) });

t.test('after real traffic, /metrics counts requests, first audio, real-time factor, refusals and sessions; logs carry the ids', async (t) => {
  const { logger, lines } = capturingLogger();
  const srv = await startServer(t, { logger, config: config((c) => (c.plugins.find((p) => p.resolve === '@sawt/plugin-billing').options.rateLimit = { windowMs: 60_000, max: 40 })) });
  const { headers, key, account } = await srv.client();

  t.equal((await fetch(`${srv.api}/models`, { headers })).status, 200);
  const ok = await tts(srv, headers);
  t.equal(ok.status, 200);
  t.ok((await ok.arrayBuffer()).byteLength > 4800, 'streamed audio');
  const wav = await tts(srv, headers, { streaming: false });
  t.equal(wav.status, 200);
  await wav.arrayBuffer();
  const short = await tts(srv, headers, { text: 'قصير' });
  t.equal(short.status, 400);
  t.equal((await fetch(`${srv.api}/nowhere`)).status, 404);

  const ws = await ready(srv, key.key);
  ws.send({ type: 'text', text: `${SENTENCE} `, flush: true });
  await ws.until(() => ws.audio().find((m) => m.isFinal));
  ws.send({ type: 'bogus' });
  await ws.until(() => ws.errors().length === 1);

  const scrape = async () => {
    const r = await fetch(`${srv.base}/metrics`);
    t.equal(r.status, 200);
    t.match(r.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
    return parseMetrics(await r.text());
  };
  let m = await scrape();
  t.equal(value(m, 'sawt_ws_sessions_active'), 1, 'one live WebSocket session');
  ws.send({ type: 'closeConnection' });
  await ws.closed;

  m = await scrapeWhen(srv.base, (x) => value(x, 'sawt_synthesis_real_time_factor_count') === 3 && value(x, 'sawt_ws_sessions_active') === 0);
  t.equal(value(m, 'sawt_http_requests_total', { route: '/api/v1/text-to-speech/:model_id', status: '200' }), 2, 'two delivered TTS requests by route template');
  t.equal(value(m, 'sawt_http_requests_total', { route: '/api/v1/text-to-speech/:model_id', status: '400' }), 1);
  t.equal(value(m, 'sawt_http_requests_total', { route: '/api/v1/models', method: 'GET', status: '200' }), 1);
  t.equal(value(m, 'sawt_http_requests_total', { route: '(unmatched)', status: '404' }), 1, 'unknown paths are not labelled with the raw path');
  t.equal(value(m, 'sawt_first_audio_seconds_count', { model: 'sawt-mini', transport: 'http' }), 2);
  t.equal(value(m, 'sawt_first_audio_seconds_count', { model: 'sawt-mini', transport: 'ws' }), 1);
  const firstAudioSum = value(m, 'sawt_first_audio_seconds_sum', { model: 'sawt-mini', transport: 'http' });
  t.ok(firstAudioSum > 0 && firstAudioSum < 20, `first-audio seconds are plausible (${firstAudioSum})`);
  t.equal(value(m, 'sawt_synthesis_real_time_factor_count', { model: 'sawt-mini' }), 3, 'a real-time factor per delivered synthesis');
  t.ok(value(m, 'sawt_synthesis_audio_seconds_total', { model: 'sawt-mini', transport: 'http' }) > 1, 'audio seconds delivered');
  t.equal(value(m, 'sawt_refusals_total', { code: '40001', transport: 'http' }), 1);
  t.equal(value(m, 'sawt_refusals_total', { code: '40401', transport: 'http' }), 1);
  t.equal(value(m, 'sawt_refusals_total', { code: '40001', transport: 'ws' }), 1);
  t.equal(value(m, 'sawt_ws_sessions_active'), 0);
  t.equal(value(m, 'sawt_wallet_reservations_open'), 0, 'no reservation left open');
  t.ok(m.some((s) => s.name === 'sawt_engine_jobs' && s.labels.engine === 'espeak'), 'engine queue depth per engine');
  t.equal(value(m, 'sawt_engine_jobs'), 0);
  t.ok(m.some((s) => s.name === 'sawt_process_resident_memory_bytes'), 'process metrics');

  // Logs: a request's lines carry request, account and key ids, never the key.
  const all = JSON.stringify(lines);
  t.notOk(all.includes(key.key), 'the API key never appears in the logs');
  const delivered = lines.filter((l) => l.msg === 'synthesis delivered');
  t.equal(delivered.length, 3);
  for (const l of delivered) {
    t.match(l, { accountId: account.id, keyId: key.id, model: 'sawt-mini', chars: Number, audioSeconds: Number, ms: Number });
    t.ok(l.audioSeconds > 0.5);
  }
  t.match(delivered.find((l) => l.transport === 'http'), { requestId: String, voice: 'fusha-omar' });
  const refused = lines.find((l) => l.status === 400);
  t.match(refused, { requestId: String, accountId: account.id, keyId: key.id, errorCode: 40001, route: '/api/v1/text-to-speech/:model_id', level: 'info' });
  t.match(lines.find((l) => l.status === 404), { requestId: String, accountId: null, keyId: null, errorCode: 40401 });
  for (const l of lines.filter((x) => x.requestId && x.status)) t.ok('accountId' in l && 'keyId' in l, `request line "${l.msg}" names account and key`);
});

t.test('a flood of 429s is counted in full but logged sampled', async (t) => {
  const { logger, lines } = capturingLogger();
  const srv = await startServer(t, { logger, config: config((c) => (c.plugins.find((p) => p.resolve === '@sawt/plugin-billing').options.rateLimit = { windowMs: 60_000, max: 2 })) });
  const { headers } = await srv.client();
  const statuses = [];
  for (let i = 0; i < 60; i++) {
    const r = await fetch(`${srv.api}/models`, { headers });
    statuses.push(r.status);
    await r.arrayBuffer();
  }
  t.equal(statuses.filter((s) => s === 429).length, 58);
  const m = parseMetrics(await (await fetch(`${srv.base}/metrics`)).text());
  t.equal(value(m, 'sawt_refusals_total', { code: '42902' }), 58, 'every refusal counted');
  t.equal(value(m, 'sawt_http_requests_total', { status: '429' }), 58);
  const logged = lines.filter((l) => l.status === 429);
  t.ok(logged.length >= 1 && logged.length <= 3, `58 refusals gave ${logged.length} log line(s)`);
});

t.test('metrics on a port of their own: not on the API port', async (t) => {
  const port = await freePort();
  const srv = await startServer(t, { config: config((c) => (c.plugins.find((p) => p.resolve === '@sawt/plugin-transport-http').options.metrics = { port, host: '127.0.0.1' })) });
  const api = await fetch(`${srv.base}/metrics`);
  t.equal(api.status, 404, 'the API port does not serve /metrics');
  t.equal((await api.json()).errorCode, 40401);
  const own = await fetch(`http://127.0.0.1:${port}/metrics`);
  t.equal(own.status, 200);
  t.match(await own.text(), /# TYPE sawt_http_requests_total counter/);
  t.equal((await fetch(`http://127.0.0.1:${port}/api/v1/models`)).status, 404, 'nothing else on the metrics port');
});

t.test('metrics can be switched off', async (t) => {
  const srv = await startServer(t, { config: config((c) => (c.plugins.find((p) => p.resolve === '@sawt/plugin-transport-http').options.metrics = { enabled: false })) });
  t.equal((await fetch(`${srv.base}/metrics`)).status, 404);
});

t.test('denoise seconds', { skip: !hasShared && 'shared test audio not present' }, async (t) => {
  const srv = await startServer(t);
  const { key } = await srv.client();
  const r = await denoise(srv.api, key.key, readFileSync(path.join(noiseDir, 'noisy_speech_en_snr0.wav')), 'noisy.wav');
  t.equal(r.status, 200);
  const m = await scrapeWhen(srv.base, (x) => value(x, 'sawt_denoise_duration_seconds_count') > 0);
  t.equal(value(m, 'sawt_denoise_duration_seconds_count'), 1);
  t.ok(value(m, 'sawt_denoise_audio_seconds_total') > 1, 'audio seconds denoised');
});
