// Pronunciation dictionaries applied to synthesis (POST /text-to-speech with
// pronunciation_dictionary_locators), heard on the deterministic HTS voice: an alias rule sounds
// like the text it stands for and unlike the text without it; a locator the account cannot use is
// 404 / 40401 with nothing charged, never a silent no-op; aliases are billed as spoken.
import t from 'tap';
import { tokens } from '@sawt/core';
import { readFileSync } from 'node:fs';
import { defaultConfigPath, startServer, parseWav } from '../helpers/server.js';
import { injectFetch } from '../http/inject.js';
import { envelopeCorrelation, seconds } from '../ssml/listening.js';

const srv = await startServer(t);
const fetch = injectFetch(srv);
const MODEL = 'sawt-hts';
const costMicro = srv.app.get(tokens.models).get(MODEL).costPerCharMicro;
const owner = await srv.client({ balance: '10' });
const other = await srv.client({ balance: '10' });
const base = { voice_id: 'fusha-omar', stability: 0.5, streaming: false };

const call = (who, method, path, body) => fetch(`${srv.api}${path}`, body === undefined ? { method, headers: { 'x-api-key': who.headers['x-api-key'] } } : { method, headers: who.headers, body: JSON.stringify(body) });
const tts = (who, body, path = '') => call(who, 'POST', `/text-to-speech/${MODEL}${path}`, { ...base, ...body });
const create = async (who, name, rules) => {
  const res = await call(who, 'POST', '/pronunciation-dictionaries', { name, rules });
  t.equal(res.status, 201, `dictionary ${name} created`);
  return res.json();
};
const locator = (d, version = false) => ({ pronunciation_dictionary_id: d.id, ...(version && { version_id: d.version_id }) });

async function speech(t, who, body) {
  const res = await tts(who, body);
  t.equal(res.status, 200, `200 for ${body.text}`);
  if (res.status !== 200) t.comment(await res.text());
  return parseWav(Buffer.from(await res.arrayBuffer())).data;
}

const alike = (a, b) => ({ duration: Math.abs(seconds(a) - seconds(b)) / seconds(b), r: envelopeCorrelation(a, b) });

const TEXT = 'أعلنت WHO خطتها الجديدة اليوم';
const SPOKEN = 'أعلنت منظمة الصحة العالمية خطتها الجديدة اليوم';
const dict = await create(owner, 'منظمات', [{ string_to_replace: 'who', type: 'alias', alias: 'منظمة الصحة العالمية' }]);

t.test('an alias rule sounds like the text it stands for, and unlike the text without it', async (t) => {
  const ruled = await speech(t, owner, { text: TEXT, pronunciation_dictionary_locators: [locator(dict)] });
  const spoken = await speech(t, owner, { text: SPOKEN });
  const without = await speech(t, owner, { text: TEXT });
  const same = alike(ruled, spoken);
  t.ok(same.duration <= 0.04, `duration within 4 % of the alias's text (${(same.duration * 100).toFixed(1)} %)`);
  t.ok(same.r > 0.9, `envelope correlation ${same.r.toFixed(3)} > 0.9`);
  const unlike = alike(ruled, without);
  t.ok(unlike.duration > 0.04 || unlike.r <= 0.9, `unlike the text read without the rule (${(unlike.duration * 100).toFixed(1)} %, r ${unlike.r.toFixed(3)})`);
  // With proclitics (وبـ) and in SSML, the same rule applies.
  const ssml = await speech(t, owner, { text: `<speak>${TEXT}</speak>`, pronunciation_dictionary_locators: [locator(dict, true)] });
  t.ok(alike(ssml, spoken).r > 0.9, 'in SSML too');
});

t.test('a phoneme rule is spoken on sawt-hts (mapped, not dropped)', async (t) => {
  const d = await create(owner, 'مدن', [{ string_to_replace: 'الرياض', type: 'phoneme', phoneme: 'ʔarrijaːdˤ', alphabet: 'ipa' }]);
  const ruled = await speech(t, owner, { text: 'زرنا الرياض في الصيف الماضي', pronunciation_dictionary_locators: [locator(d)] });
  const without = await speech(t, owner, { text: 'زرنا في الصيف الماضي' });
  t.ok(seconds(ruled) > seconds(without) + 0.3, `the word is heard (${seconds(ruled).toFixed(3)} s vs ${seconds(without).toFixed(3)} s without it)`);
});

t.test('billing counts the alias as spoken', async (t) => {
  const before = await srv.balance(owner.account.id);
  await (await tts(owner, { text: TEXT, pronunciation_dictionary_locators: [locator(dict)] })).arrayBuffer();
  const after = await srv.balance(owner.account.id);
  t.equal(before.balance - after.balance, [...SPOKEN].length * costMicro, `charged ${[...SPOKEN].length} characters (the spoken text), not ${[...TEXT].length}`);
});

t.test('another account\'s, an unknown or a deleted dictionary: 404 / 40401 and nothing charged', async (t) => {
  const gone = await create(owner, 'مؤقت', [{ string_to_replace: 'UN', type: 'alias', alias: 'الأمم المتحدة' }]);
  t.equal((await call(owner, 'DELETE', `/pronunciation-dictionaries/${gone.id}`)).status, 200);
  const cases = [
    [other, [locator(dict)], 'another account\'s'],
    [owner, [{ pronunciation_dictionary_id: 'no-such-dictionary' }], 'unknown'],
    [owner, [locator(gone)], 'deleted'],
    [owner, [{ pronunciation_dictionary_id: dict.id, version_id: 'no-such-version' }], 'unknown version'],
  ];
  for (const [who, locators, what] of cases) {
    for (const path of ['', '/with-timestamps']) {
      const before = await srv.balance(who.account.id);
      const res = await tts(who, { text: TEXT, pronunciation_dictionary_locators: locators }, path);
      const body = await res.json();
      t.same([res.status, body.errorCode], [404, 40401], `${what}${path}: ${body.errorMessage}`);
      const after = await srv.balance(who.account.id);
      t.same([after.balance, after.reserved], [before.balance, 0], 'nothing charged or reserved');
    }
  }
});

t.test('locators: at most 3, each an object with an id (400 / 40001)', async (t) => {
  const four = await tts(owner, { text: TEXT, pronunciation_dictionary_locators: [1, 2, 3, 4].map(() => locator(dict)) });
  t.same([four.status, (await four.json()).errorCode], [400, 40001]);
  const bad = await tts(owner, { text: TEXT, pronunciation_dictionary_locators: [{ version_id: 'x' }] });
  const body = await bad.json();
  t.same([bad.status, body.errorCode], [400, 40001]);
  t.match(body.errorMessage, /pronunciation_dictionary_locators\[0\]\.pronunciation_dictionary_id is required/);
  const notArray = await tts(owner, { text: TEXT, pronunciation_dictionary_locators: 'abc' });
  t.equal(notArray.status, 400);
});

t.test('an earlier version stays usable by version_id; the latest is the default', async (t) => {
  const d = await create(owner, 'نسخ', [{ string_to_replace: 'WHO', type: 'alias', alias: 'منظمة الصحة العالمية' }]);
  const patched = await call(owner, 'PATCH', `/pronunciation-dictionaries/${d.id}`, { add_rules: [{ string_to_replace: 'WHO', type: 'alias', alias: 'المنظمة' }] });
  t.equal(patched.status, 200);
  const pay = async (loc) => {
    const before = await srv.balance(owner.account.id);
    await (await tts(owner, { text: TEXT, pronunciation_dictionary_locators: [loc] })).arrayBuffer();
    return (before.balance - (await srv.balance(owner.account.id)).balance) / costMicro;
  };
  t.equal(await pay(locator(d, true)), [...SPOKEN].length, 'version 1: the long alias');
  t.equal(await pay(locator(d)), [...'أعلنت المنظمة خطتها الجديدة اليوم'].length, 'latest: the new alias');
});

t.test('a server without the dictionaries plugin refuses a locator (404 / 40401 saying so), nothing charged', async (t) => {
  const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  config.plugins = config.plugins.filter((p) => p.resolve !== '@sawt/plugin-dictionaries');
  const bare = await startServer(t, { config });
  const who = await bare.client({ balance: '10' });
  const res = await injectFetch(bare)(`${bare.api}/text-to-speech/${MODEL}`, { method: 'POST', headers: who.headers, body: JSON.stringify({ ...base, text: TEXT, pronunciation_dictionary_locators: [locator(dict)] }) });
  const body = await res.json();
  t.same([res.status, body.errorCode], [404, 40401]);
  t.match(body.errorMessage, /no pronunciation dictionaries/);
  const after = await bare.balance(who.account.id);
  t.equal(after.reserved, 0);
  t.equal(after.balance, 10_000_000, 'the whole top-up is still there');
});
