// The CLI follows the API's voice/model data: `sawt voices list --model M` lists the voices that speak
// on M (as GET /voices?model_id=M), and `sawt say --model M --voice V` speaks any built-in persona on
// both built-in models, refusing a voice M lacks with the list of M's voices.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parseWav, pcmStats, tempDir } from '../helpers/server.js';
import { sawtCli, sawtJson } from '../helpers/spawned-server.js';

t.test('sawt voices list --model', async (t) => {
  const env = { SAWT_DATA_DIR: tempDir(t) };
  const hts = await sawtJson(env, 'voices', 'list', '--model', 'sawt-hts');
  t.ok(hts.some((v) => v.voice_id === 'fusha-omar' && v.models.includes('sawt-hts')), 'fusha-omar speaks on sawt-hts');
  t.ok(hts.some((v) => v.voice_id === 'egyptian-nour' && v.gender === 'female'), 'so do the female personas');
  t.ok(hts.every((v) => v.models.includes('sawt-hts')), 'every listed voice names the model');
  t.notOk(hts.some((v) => v.voice_id === 'neural-kareem'), 'not the Piper voice');
  const bad = await sawtCli(env, 'voices', 'list', '--model', 'sawt-nothing');
  t.not(bad.code, 0);
  t.match(bad.stderr, "--model: no model 'sawt-nothing' is offered (models: sawt-mini, sawt-hts");
});

t.test('sawt say --model sawt-hts --voice fusha-layla writes speech; a voice the model lacks names its voices', async (t) => {
  const dir = tempDir(t);
  const env = { SAWT_DATA_DIR: dir };
  const out = path.join(dir, 'layla.wav');
  const ok = await sawtCli(env, 'say', 'مرحبا بكم في خدمة صوت', '--model', 'sawt-hts', '--voice', 'fusha-layla', '--out', out);
  t.equal(ok.code, 0, ok.stderr);
  t.ok(pcmStats(parseWav(readFileSync(out)).data).rms > 300, 'speech written');
  const bad = await sawtCli(env, 'say', 'مرحبا بكم في خدمة صوت', '--model', 'sawt-hts', '--voice', 'neural-kareem', '--out', out);
  t.not(bad.code, 0);
  t.match(bad.stderr, /no voice 'neural-kareem' for model sawt-hts \(voices: fusha-omar, fusha-layla, .*fusha-ziad/);
});
