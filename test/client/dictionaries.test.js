// @sawt/client's pronunciation dictionaries against a real server: create from JSON rules and
// from a PLS file, list, get (latest and an earlier version), update (a new version), delete; a
// request naming one by locator is read by its rules; the server's errors as typed errors.
import t from 'tap';
import { SawtClient, NotFoundError, ValidationError } from '@sawt/client';
import { startServer, parseWav } from '../helpers/server.js';
import { seconds } from '../ssml/listening.js';

const srv = await startServer(t);
const { key } = await srv.client({ balance: '10' });
const other = await srv.client({ balance: '1' });
const sawt = new SawtClient({ baseUrl: srv.base, apiKey: key.key });
const stranger = new SawtClient({ baseUrl: srv.base, apiKey: other.key.key });

const PLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="ar">
  <lexeme><grapheme>WHO</grapheme><alias>منظمة الصحة العالمية</alias></lexeme>
</lexicon>`;

t.test('create, list, get, update (versions), delete', async (t) => {
  const created = await sawt.pronunciationDictionaries.create({ name: 'أسماء', rules: [{ string_to_replace: 'الرياض', type: 'alias', alias: 'العاصمة' }] });
  t.match(created, { name: 'أسماء', version_number: 1, rules: [{ string_to_replace: 'الرياض', type: 'alias', alias: 'العاصمة' }] });
  t.equal(created.latest_version_id, created.version_id);

  const fromPls = await sawt.pronunciationDictionaries.create({ name: 'منظمات', file: PLS });
  t.same(fromPls.rules, [{ string_to_replace: 'WHO', type: 'alias', alias: 'منظمة الصحة العالمية' }], 'the PLS lexeme as a rule');

  const list = await sawt.pronunciationDictionaries.list();
  t.same(list.map((d) => [d.id, d.rule_count]), [[created.id, 1], [fromPls.id, 1]], 'the account\'s own, oldest first');
  t.same(await stranger.pronunciationDictionaries.list(), [], 'another account sees none of them');

  const updated = await sawt.pronunciationDictionaries.update(created.id, { add_rules: [{ string_to_replace: 'جدة', type: 'phoneme', phoneme: 'ʒidda', alphabet: 'ipa' }], remove_rules: ['الرياض'] });
  t.equal(updated.version_number, 2);
  t.not(updated.version_id, created.version_id, 'a new version');
  t.same(updated.rules.map((r) => r.string_to_replace), ['جدة']);
  const first = await sawt.pronunciationDictionaries.get(created.id, { versionId: created.version_id });
  t.same(first.rules.map((r) => r.string_to_replace), ['الرياض'], 'the first version stays readable');
  t.equal((await sawt.pronunciationDictionaries.get(created.id)).version_id, updated.version_id, 'get: the latest');
  const byFile = await sawt.pronunciationDictionaries.update(created.id, { file: new Blob([PLS]), fileName: 'more.pls' });
  t.same(byFile.rules.map((r) => r.string_to_replace).sort(), ['WHO', 'جدة'], 'a PLS file adds its lexemes');

  const theirs = await stranger.pronunciationDictionaries.get(created.id).catch((e) => e);
  t.ok(theirs instanceof NotFoundError, 'another account\'s dictionary is not found');
  t.match(theirs, { errorCode: 40401, status: 404 });
  const bad = await sawt.pronunciationDictionaries.create({ name: 'x', rules: [{ string_to_replace: 'a', type: 'phoneme', phoneme: 'a', alphabet: 'sampa' }] }).catch((e) => e);
  t.ok(bad instanceof ValidationError);
  t.match(bad, { errorCode: 40001, message: /rules\[0\]\.alphabet must be one of ipa, x-sawt/u });

  t.same(await sawt.pronunciationDictionaries.delete(fromPls.id), { id: fromPls.id, deleted: true });
  const gone = await sawt.pronunciationDictionaries.get(fromPls.id).catch((e) => e);
  t.ok(gone instanceof NotFoundError, 'deleted');
});

t.test('a speech request names a dictionary by locator: its alias is read', async (t) => {
  const dict = await sawt.pronunciationDictionaries.create({ name: 'اختصارات', rules: [{ string_to_replace: 'WHO', type: 'alias', alias: 'منظمة الصحة العالمية' }] });
  const text = 'أعلنت WHO اليوم عن خطة جديدة';
  const body = { voice_id: 'fusha-omar', stability: 0.5, output_format: 'wav_24000' };
  const aliased = parseWav(Buffer.from(await sawt.textToSpeech('sawt-hts', { ...body, text, pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: dict.id }] }))).data;
  const spelled = parseWav(Buffer.from(await sawt.textToSpeech('sawt-hts', { ...body, text: 'أعلنت منظمة الصحة العالمية اليوم عن خطة جديدة' }))).data;
  const ratio = seconds(aliased) / seconds(spelled);
  t.ok(Math.abs(ratio - 1) <= 0.04, `read as its alias: ${seconds(aliased).toFixed(2)} s vs ${seconds(spelled).toFixed(2)} s`);

  await sawt.pronunciationDictionaries.delete(dict.id);
  const gone = await sawt.textToSpeech('sawt-hts', { ...body, text, pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: dict.id }] }).catch((e) => e);
  t.ok(gone instanceof NotFoundError, 'a deleted dictionary\'s locator is 404, never a silent no-op');
  t.equal(gone.errorCode, 40401);
});
