// An operator's Piper voice from a config entry, and the start-up errors of broken voice files:
// a missing .onnx.json, an id map that lacks a phoneme espeak makes, a model whose inputs differ.
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { createSawt } from '@sawt/core';
import { defaultConfigPath, parseWav, silentLogger, startServer, tempDir } from '../helpers/server.js';
import { tinyAddModel } from '../native/tiny-onnx.js';
import { STANDIN } from './helpers.js';

const TINY = join(STANDIN, 'ar_JO-standin-tiny.onnx');
const TINY_JSON = `${TINY}.json`;

/** The default config with one more model `my-piper` (files piper/custom.onnx) and its voice. */
function withCustomVoice(voicePiper = {}) {
  const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  const engine = config.plugins.find((p) => p.resolve === '@sawt/plugin-engine').options;
  engine.models.push({ model_id: 'my-piper', model_name: 'My Piper voice', engine: 'piper', cost_per_char: 0.0003, files: ['piper/custom.onnx'] });
  engine.voices.push({ voice_id: 'my-voice', name: 'Mine', languages: ['ar'], dialect: ['fusha'], type: 'neural', models: ['my-piper'], piper: voicePiper });
  return config;
}

function modelsDir(t, { onnx = TINY, json = readFileSync(TINY_JSON, 'utf8') } = {}) {
  const dir = tempDir(t, 'sawt-piper-custom-');
  mkdirSync(join(dir, 'piper'));
  if (typeof onnx === 'string') symlinkSync(onnx, join(dir, 'piper/custom.onnx'));
  else writeFileSync(join(dir, 'piper/custom.onnx'), onnx);
  if (json !== null) writeFileSync(join(dir, 'piper/custom.onnx.json'), json);
  return dir;
}

async function startFails(t, config, dir) {
  const dataDir = tempDir(t);
  const app = await createSawt({
    runtime: { host: '127.0.0.1', port: 0, dataDir, modelsDir: dir, configPath: defaultConfigPath, configDir: join(defaultConfigPath, '..') },
    config,
    logger: silentLogger,
  });
  try {
    await app.start();
  } catch (error) {
    return error;
  } finally {
    await app.stop().catch(() => {});
  }
  return null;
}

t.test('a Piper voice from a config entry loads and speaks', async (t) => {
  const srv = await startServer(t, { config: withCustomVoice(), runtime: { modelsDir: modelsDir(t) } });
  const { headers } = await srv.client();
  const res = await fetch(`${srv.api}/text-to-speech/my-piper`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'my-voice', text: 'مرحبا بكم في خدمة صوت.', streaming: false, stability: 0.5 }) });
  t.equal(res.status, 200, res.status === 200 ? 'ok' : await res.clone().text());
  t.ok(parseWav(Buffer.from(await res.arrayBuffer())).data.length > 24000, 'more than half a second of audio');
});

t.test('the .onnx without its .onnx.json stops the start, naming the file', async (t) => {
  const e = await startFails(t, withCustomVoice(), modelsDir(t, { json: null }));
  t.match(e?.message, /model 'my-piper': .*custom\.onnx is present but its config piper\/custom\.onnx\.json is not/);
});

t.test('an id map that lacks a phoneme espeak makes stops the start, naming the phoneme', async (t) => {
  const json = JSON.parse(readFileSync(TINY_JSON, 'utf8'));
  delete json.phoneme_id_map['ħ'];
  const e = await startFails(t, withCustomVoice(), modelsDir(t, { json: JSON.stringify(json) }));
  t.match(e?.message, /model 'my-piper': the phoneme_id_map of .*custom\.onnx\.json lacks 'ħ' \(U\+0127\)/);
});

t.test('a model whose inputs are not Piper\'s stops the start, naming its inputs', async (t) => {
  const e = await startFails(t, withCustomVoice(), modelsDir(t, { onnx: tinyAddModel() }));
  t.match(e?.message, /model 'my-piper': .*custom\.onnx is not a Piper voice: unexpected input 'X'; the model has inputs X, K/);
});

t.test('a config without BOS/pad/EOS, a speaker the voice lacks: clear start-up errors', async (t) => {
  const json = JSON.parse(readFileSync(TINY_JSON, 'utf8'));
  delete json.phoneme_id_map['^'];
  const e1 = await startFails(t, withCustomVoice(), modelsDir(t, { json: JSON.stringify(json) }));
  t.match(e1?.message, /phoneme_id_map has no '\^' \(BOS\)/);
  const e2 = await startFails(t, withCustomVoice({ speaker: 'amal' }), modelsDir(t));
  t.match(e2?.message, /voice 'my-voice' names speaker 'amal', but .*custom\.onnx\.json has one speaker/);
  const multi = JSON.parse(readFileSync(TINY_JSON, 'utf8'));
  multi.num_speakers = 3;
  const e3 = await startFails(t, withCustomVoice(), modelsDir(t, { json: JSON.stringify(multi) }));
  t.match(e3?.message, /says num_speakers 3, but .*custom\.onnx has no speaker input 'sid'/);
});

t.test('without the .onnx the model is simply not offered', async (t) => {
  const dir = tempDir(t, 'sawt-piper-none-');
  const srv = await startServer(t, { config: withCustomVoice(), runtime: { modelsDir: dir } });
  const { headers } = await srv.client();
  const res = await fetch(`${srv.api}/text-to-speech/my-piper`, { method: 'POST', headers, body: JSON.stringify({ voice_id: 'my-voice', text: 'مرحبا بكم في خدمة صوت.', streaming: false, stability: 0.5 }) });
  t.equal(res.status, 404, await res.clone().text());
});
