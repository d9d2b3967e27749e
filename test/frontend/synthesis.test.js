// End to end through a real server: diacritizer loading (or its absence), dialect
// rules changing the audio, the text CLI commands.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { startServer, tempDir, withoutBundledModels } from '../helpers/server.js';
import { repoRoot } from './helpers.js';
import { tokens } from '@sawt/core';
import { ENGINE } from './helpers.js';

const { synthesizeStream } = await import('@sawt/native');

const run = promisify(execFile);
const bin = path.join(repoRoot, 'packages/cli/bin/sawt.js');
const cli = (env, ...args) => run(process.execPath, [bin, ...args], { env: { ...process.env, ...env }, cwd: repoRoot }).then(
  ({ stdout }) => ({ code: 0, stdout }),
  (e) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
);

function captureLogger() {
  const lines = [];
  const l = { info: (o, m) => lines.push(['info', m, o]), debug: () => {}, warn: (o, m) => lines.push(['warn', m, o]), error: (o, m) => lines.push(['error', m, o]), child: () => l };
  return { logger: l, lines };
}

async function tts(srv, headers, voice_id, text) {
  const res = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id, text, streaming: false, stability: 1 }) });
  if (res.status !== 200) throw new Error(`tts ${res.status} ${await res.text()}`);
  return Buffer.from(await res.arrayBuffer());
}

t.test('without the diacritizer the service works and says so (logs, /models)', async (t) => {
  const { logger, lines } = captureLogger();
  const srv = await startServer(t, { logger, ...withoutBundledModels() });
  t.ok(lines.some(([lvl, m]) => lvl === 'warn' && /diacritizer files missing/.test(m)), 'logged');
  const { headers } = await srv.client();
  const models = await (await fetch(`${srv.api}/models`, { headers })).json();
  const mini = (models.models ?? models).find((m) => m.model_id === 'sawt-mini');
  t.match(mini.description, /Diacritizer not installed/);
  t.ok((await tts(srv, headers, 'fusha-omar', 'مرحبا بكم في خدمة صوت للنطق العربي.')).length > 1000);
});

t.test('with the (bundled) diacritizer, dialect rules change the audio of words with ق only', async (t) => {
  const { logger, lines } = captureLogger();
  const srv = await startServer(t, { logger });
  t.ok(lines.some(([, m]) => m === 'diacritizer loaded'));
  const pipeline = srv.app.get(tokens.textPipeline);
  t.match(await pipeline.run('diacritize', 'قال الرجل كلاما جميلا'), /^قَالَ/u);
  const { headers } = await srv.client();
  const models = await (await fetch(`${srv.api}/models`, { headers })).json();
  t.notMatch((models.models ?? models).find((m) => m.model_id === 'sawt-mini').description, /not installed/);

  const WITH_Q = 'قال القاضي قولا صادقا في القضية.';
  const WITHOUT = 'سافر الولد مع أسرته إلى البحر.';
  // What the engine receives per dialect, then audio from the same espeak voice settings.
  const engineInput = async (dialect, text) => {
    const { first, rest } = await pipeline.frontEnd.processInParts({ text, dialect, phonemes: 'espeak' });
    return { segments: [...(await first), ...(rest ? await rest : [])] };
  };
  const audio = async ({ segments }) => {
    const chunks = [];
    // As the espeak back end reads its input: [[ ]] passages make it phoneme input.
    for await (const c of synthesizeStream({ segments, phonemeInput: segments.some((s) => s.includes('[[')), voice: 'ar', rate: 175, pitch: 50, range: 50, sampleRate: 22050 })) chunks.push(c.pcm);
    return Buffer.concat(chunks);
  };
  const fusha = await engineInput('fusha', WITH_Q);
  const egyptian = await engineInput('egyptian', WITH_Q);
  const najdi = await engineInput('najdi', WITH_Q);
  t.notMatch(fusha.segments.join(' '), /\[\[/u, 'fusha: text input, espeak reads it itself');
  t.match(egyptian.segments[0], /\[\[\?'a:l.*\]\]/u, 'egyptian: ق → ʔ in the phoneme input');
  t.match(najdi.segments[0], /\[\[g'a:l.*\]\]/u, 'najdi: ق → g');
  const [aF, aE, aN] = await Promise.all([audio(fusha), audio(egyptian), audio(najdi)]);
  for (const [name, a] of [['egyptian', aE], ['najdi', aN]]) {
    t.ok(a.length > aF.length * 0.6 && a.length < aF.length * 1.6, `${name} audio is full speech (${a.length} vs ${aF.length} bytes)`);
    t.not(a.toString('base64'), aF.toString('base64'), `${name} audio differs from fusha`);
  }
  // No sound the dialect changes: no phoneme rewrite (a colloquial dialect still reads the words in pausal form).
  t.notMatch((await engineInput('egyptian', WITHOUT)).segments.join(' '), /\[\[/u, 'no affected sounds: no phoneme passages');
  t.ok((await tts(srv, headers, 'egyptian-karim', WITH_Q)).length > 1000, 'over HTTP');
});

t.test('sawt text normalize|diacritize|phonemize', async (t) => {
  const dataDir = tempDir(t);
  const env = { SAWT_DATA_DIR: dataDir, SAWT_MODELS_DIR: path.join(dataDir, 'models') };
  const text = 'قال  الرجل جميلا';
  const n = await cli(env, 'text', 'normalize', text, '--json');
  t.equal(n.code, 0, n.stderr);
  t.same(JSON.parse(n.stdout), { input: text, output: 'قال الرجل جميلا' });
  const d = JSON.parse((await cli(env, 'text', 'diacritize', text, '--json')).stdout);
  t.equal(d.input, text);
  t.match(d.output, /^قَالَ/u, 'the bundled diacritizer, with SAWT_MODELS_DIR empty');
  const p = await cli(env, 'text', 'phonemize', 'قَالَ جَمِيلًا', '--dialect', 'egyptian');
  t.equal(p.code, 0, p.stderr);
  t.match(p.stdout, /^\[\[\?'a:la g'ami:l,an\]\]\n$/u);
  const bad = await cli(env, 'text', 'phonemize', 'قال', '--dialect', 'martian');
  t.equal(bad.code, 2);
  t.match(bad.stderr, /--dialect must be one of egyptian, emirati, fusha, hijazi, kuwaiti, najdi/);
});
