// The README's own code, run as a reader would run it: its request (curl), WebSocket and client
// blocks, and the examples, against a test server. Only the setup is the test's: KEY (a key of a
// fresh account), `text`, a play() that counts what it is given, and the server's address in
// place of 127.0.0.1:8080. The seed's text rule (3 words, 10 characters) stays; the snippets and
// examples must meet it (they used to stop at error 40001 with nothing written).
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { parseWav, pcmStats, repoRoot, SENTENCE, startServer, tempDir } from './helpers/server.js';

const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
/** The README's fenced code blocks: { lang, code }. */
const blocks = [...readme.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], code: m[2] }));
const block = (lang, needle) => {
  const found = blocks.filter((b) => b.lang === lang && b.code.includes(needle));
  if (found.length !== 1) throw new Error(`README: expected one ${lang} block with ${needle}, found ${found.length}`);
  return found[0].code;
};
const wsUrl = pathToFileURL(createRequire(import.meta.url).resolve('ws')).href;
const clientUrl = pathToFileURL(path.join(repoRoot, 'packages/client/dist/index.js')).href;

function run(file, args, env, cwd) {
  return new Promise((resolve) => {
    execFile(file, args, { env: { ...process.env, ...env }, cwd, encoding: 'buffer', timeout: 120_000 }, (e, stdout, stderr) =>
      resolve({ code: e ? (e.code ?? e.signal) : 0, stdout: stdout.toString(), stderr: stderr.toString() }));
  });
}

/** Runs a JavaScript module (the setup, then the README's code, then `after`) in a Node process of its own. */
async function runModule(t, code, env) {
  const dir = tempDir(t);
  const file = path.join(dir, 'snippet.mjs');
  writeFileSync(file, code);
  return run(process.execPath, [file], env, dir);
}

t.test('README', async (t) => {
  const srv = await startServer(t);
  const { key } = await srv.client();
  const local = (code) => code.replaceAll('http://127.0.0.1:8080', srv.base).replaceAll('ws://127.0.0.1:8080', srv.base.replace('http:', 'ws:'));

  t.test('the first request: the curl lines (the account and key are the setup)', async (t) => {
    const sh = block('sh', 'curl -s');
    const curl = local(sh.slice(sh.indexOf('curl -s')));
    const dir = tempDir(t);
    const r = await run('bash', ['-euc', curl], { KEY: key.key }, dir);
    t.equal(r.code, 0, r.stderr);
    const voices = JSON.parse(r.stdout);
    t.ok(Array.isArray(voices) && voices.some((v) => v.voice_id === 'fusha-ziad'), 'the voices, fusha-ziad among them');
    const wav = parseWav(readFileSync(path.join(dir, 'hello.wav')));
    t.equal(wav.riff, 'RIFF', 'hello.wav is a WAV');
    t.ok(pcmStats(wav.data).rms > 300, 'with speech');
  });

  t.test('the WebSocket block', async (t) => {
    const code = local(block('js', 'new WebSocket('));
    const r = await runModule(t, `
const KEY = process.env.KEY;
const WebSocket = globalThis.WebSocket ?? (await import(${JSON.stringify(wsUrl)})).default;
const played = [];
const play = (pcm, rate) => played.push({ bytes: pcm.length, rate });
const errors = [];
const console = { ...globalThis.console, error: (...a) => errors.push(a.join(' ')) };
${code}
const closed = await new Promise((resolve) => ws.addEventListener('close', (e) => resolve(e.code)));
process.stdout.write(JSON.stringify({ played, errors, closed }));
`, { KEY: key.key });
    t.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    t.same(out.errors, [], 'no error message from the server');
    t.equal(out.closed, 1000, 'closed normally after isFinal');
    const bytes = out.played.reduce((n, p) => n + p.bytes, 0);
    t.ok(bytes > 16000 * 2, `played ${(bytes / 32000).toFixed(1)} s of audio`);
    t.ok(out.played.every((p) => p.rate === 16000), 'at the sample rate asked for (pcm_16000)');
  });

  t.test('the client block', async (t) => {
    const code = local(block('js', "from '@sawt/client'")).replace("from '@sawt/client'", `from ${JSON.stringify(clientUrl)}`);
    const r = await runModule(t, `${code.split('\n').filter((l) => l.startsWith('import ')).join('\n')}
const KEY = process.env.KEY;
const text = ${JSON.stringify(SENTENCE)};
globalThis.WebSocket ??= (await import(${JSON.stringify(wsUrl)})).default;
const played = [];
const play = (pcm) => played.push(pcm.length);
${code.split('\n').filter((l) => !l.startsWith('import ')).join('\n')}
process.stdout.write(JSON.stringify({ wav: wav.length, played }));
process.exit(0);
`, { KEY: key.key });
    t.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    t.ok(out.wav > 48000, `textToSpeech: a WAV of ${out.wav} bytes`);
    t.ok(out.played.filter((n) => n > 0).length >= 2, 'the HTTP stream and the WebSocket session both played audio');
  });

  t.test('examples/speak-file.mjs on a text with a two-word heading and a one-word last line', async (t) => {
    const dir = tempDir(t);
    writeFileSync(path.join(dir, 'in.txt'), `مقدمة قصيرة\n\n${SENTENCE}\n\nيسعدنا أن نقدم لكم خدمة صوت المفتوحة المصدر.\n\nشكرا\n`);
    const r = await run(process.execPath, [path.join(repoRoot, 'examples/speak-file.mjs'), 'in.txt', 'out.wav'], { SAWT_URL: srv.base, SAWT_API_KEY: key.key }, dir);
    t.equal(r.code, 0, r.stderr);
    t.match(r.stderr, /paragraph 2\/2: /, 'the heading spoken with the paragraph after it, the last line with the one before');
    const wav = parseWav(readFileSync(path.join(dir, 'out.wav')));
    t.ok(pcmStats(wav.data).seconds > 3, 'the whole text spoken');
  });

  t.test('examples/ws-generator.mjs', async (t) => {
    const dir = tempDir(t);
    const r = await run(process.execPath, [path.join(repoRoot, 'examples/ws-generator.mjs'), 'ws.wav'], { SAWT_URL: srv.base, SAWT_API_KEY: key.key }, dir);
    t.equal(r.code, 0, r.stderr);
    t.ok(pcmStats(parseWav(readFileSync(path.join(dir, 'ws.wav'))).data).seconds > 3, 'the generated text spoken');
  });
});
