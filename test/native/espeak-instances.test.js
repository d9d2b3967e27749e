// espeak-ng on several private instances (copies of the library), as the engine runs it by default.
// Its own file: the count is taken once per process, before espeak's first use.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { BASE, LONG_SENTENCE, SENTENCE, collect, medianPitch, rms } from './helpers.js';

const { espeakInstances, phonemize, synthesizeStream } = await import('@sawt/native');

// The copies are made in TMPDIR and removed at once: none may stay.
const tmp = mkdtempSync(path.join(tmpdir(), 'sawt-espeak-test-'));
process.env.TMPDIR = tmp;
t.teardown(() => rmSync(tmp, { recursive: true, force: true }));

t.test('the count is checked, and set before the first use', async (t) => {
  t.equal(espeakInstances(), 1, 'one by default');
  t.throws(() => espeakInstances(0), { code: 'SAWT_ENGINE_INVALID_ARGUMENT' });
  t.throws(() => espeakInstances(2.5), { code: 'SAWT_ENGINE_INVALID_ARGUMENT' });
  t.equal(espeakInstances(3), 3);
});

t.test('syntheses at once on three instances each give the audio of one alone', async (t) => {
  const alone = await collect(synthesizeStream({ ...BASE, segments: [LONG_SENTENCE], sampleRate: 24000 }));
  t.same(readdirSync(tmp), [], 'the library copies are gone from TMPDIR once loaded');
  const voices = ['ar', 'ar+f2', 'ar', 'ar+f2', 'ar', 'ar+f2'];
  const together = await Promise.all([
    ...voices.map((voice) => collect(synthesizeStream({ ...BASE, voice, segments: [LONG_SENTENCE, SENTENCE], sampleRate: 24000 }))),
    phonemize('مُحَمَّدٌ عَرَبِيٌّ', 'ar').then((ipa) => ({ ipa })),
  ]);
  const ipa = together.pop().ipa;
  t.match(ipa, /ħ/, 'phonemize runs beside the syntheses');
  const longSamples = (r) => r.infos.filter((i) => i.segment === 0).reduce((n, i) => n + i.samples, 0);
  for (const [k, r] of together.entries()) {
    t.ok(rms(r.samples) > 500, `stream ${k}: audible`);
    t.ok(Math.abs(longSamples(r) - alone.samples.length) < alone.samples.length * 0.02, `stream ${k}: its first sentence is as long as alone (${longSamples(r)} vs ${alone.samples.length} samples)`);
    t.equal(r.infos.at(-1).segmentEnd, true, `stream ${k}: ends with the chunk that closes its last segment`);
  }
  const male = medianPitch(together[0].samples, 24000);
  const female = medianPitch(together[1].samples, 24000);
  t.ok(female > male * 1.3, `each instance keeps its own voice (${female.toFixed(0)} Hz vs ${male.toFixed(0)} Hz)`);
  t.equal(espeakInstances(1), 3, 'a later count changes nothing');
});
