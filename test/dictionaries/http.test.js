// Pronunciation dictionaries over real HTTP (a booted server, every response checked against its
// OpenAPI document): create from JSON or a PLS 1.0 file, list, get, versions by PATCH, delete;
// limits; another account's dictionary is a 404; the key scope; locators resolved by the service.
import t from 'tap';
import { tokens } from '@sawt/core';
import { startServer } from '../helpers/server.js';

const server = await startServer(t);
const { api, app } = server;
const dictionaries = app.get(tokens.pronunciationDictionaries);

const call = async (headers, method, path, body) => {
  const res = await fetch(`${api}${path}`, {
    method, headers: body instanceof FormData || body === undefined ? { 'x-api-key': headers['x-api-key'] } : headers,
    ...(body !== undefined && { body: body instanceof FormData ? body : JSON.stringify(body) }),
  });
  return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text() };
};

const RULES = [
  { string_to_replace: 'الرياض', type: 'phoneme', phoneme: 'ʔarrijaːdˤ', alphabet: 'ipa' },
  { string_to_replace: 'WHO', type: 'alias', alias: 'منظمة الصحة العالمية' },
];

const PLS = `<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="ar">
  <lexeme><grapheme>جدة</grapheme><grapheme>جده</grapheme><phoneme>dʒidda</phoneme></lexeme>
  <lexeme><grapheme>UN</grapheme><alias>الأمم المتحدة</alias><phoneme>juːɛn</phoneme></lexeme>
  <lexeme><grapheme>صوت</grapheme><phoneme alphabet="x-sawt">s['awt</phoneme></lexeme>
</lexicon>`;

const plsForm = (text, name = 'من ملف') => {
  const form = new FormData();
  if (name !== null) form.set('name', name);
  form.set('file', new Blob([text], { type: 'application/pls+xml' }), 'lexicon.pls');
  return form;
};

t.test('create from JSON, list, get, patch into versions, earlier versions stay usable, delete', async (t) => {
  const { headers, account } = await server.client();
  const created = await call(headers, 'POST', '/pronunciation-dictionaries', { name: 'أسماء', rules: RULES });
  t.equal(created.status, 201);
  const { id, version_id: v1 } = created.body;
  t.ok(id && v1);
  t.equal(created.body.name, 'أسماء');
  t.same(created.body.rules, RULES);
  t.equal(created.body.version_number, 1);

  const list = await call(headers, 'GET', '/pronunciation-dictionaries');
  t.equal(list.status, 200);
  t.same(list.body.map((d) => [d.id, d.name, d.version_id, d.rule_count]), [[id, 'أسماء', v1, 2]]);

  const got = await call(headers, 'GET', `/pronunciation-dictionaries/${id}`);
  t.same([got.status, got.body.version_id, got.body.rules], [200, v1, RULES]);

  const patched = await call(headers, 'PATCH', `/pronunciation-dictionaries/${id}`, {
    add_rules: [{ string_to_replace: 'WHO', type: 'alias', alias: 'الصحة العالمية' }, { string_to_replace: 'ونسا', type: 'alias', alias: 'وَنَسَا' }],
    remove_rules: ['الرياض'],
  });
  t.equal(patched.status, 200);
  const v2 = patched.body.version_id;
  t.not(v2, v1, 'a new version');
  t.equal(patched.body.version_number, 2);
  t.same(patched.body.rules, [{ string_to_replace: 'WHO', type: 'alias', alias: 'الصحة العالمية' }, { string_to_replace: 'ونسا', type: 'alias', alias: 'وَنَسَا' }], 'a rule for the same string is replaced, the removed one is gone');

  const renamed = await call(headers, 'PATCH', `/pronunciation-dictionaries/${id}`, { name: 'أسماء ٢' });
  t.same([renamed.status, renamed.body.name, renamed.body.version_number], [200, 'أسماء ٢', 3]);

  const old = await call(headers, 'GET', `/pronunciation-dictionaries/${id}?version_id=${v1}`);
  t.same([old.status, old.body.version_id, old.body.latest_version_id, old.body.rules], [200, v1, renamed.body.version_id, RULES], 'version 1 is still there');

  t.same(await dictionaries.resolveLocators(account.id, [{ pronunciation_dictionary_id: id, version_id: v1 }]), RULES, 'a locator with a version_id gets that version');
  t.same((await dictionaries.resolveLocators(account.id, [{ pronunciation_dictionary_id: id }])).map((r) => r.string_to_replace), ['WHO', 'ونسا'], 'without one, the latest');

  // With the JSON content type (as clients that set it on every request send it) and no body.
  const res = await fetch(`${api}/pronunciation-dictionaries/${id}`, { method: 'DELETE', headers: { 'x-api-key': headers['x-api-key'], 'content-type': 'application/json' } });
  const deleted = { status: res.status, body: await res.json() };
  t.same([deleted.status, deleted.body], [200, { id, deleted: true }]);
  for (const path of [`/pronunciation-dictionaries/${id}`, `/pronunciation-dictionaries/${id}?version_id=${v1}`]) {
    const gone = await call(headers, 'GET', path);
    t.same([gone.status, gone.body.errorCode], [404, 40401], `${path} after delete`);
  }
  t.same((await call(headers, 'GET', '/pronunciation-dictionaries')).body, []);
  await t.rejects(dictionaries.resolveLocators(account.id, [{ pronunciation_dictionary_id: id, version_id: v1 }]), { status: 404, code: 40401, message: /Pronunciation dictionary '.*' not found/u }, 'a deleted dictionary\'s locator is a 404, never a silent no-op');
});

t.test('locators: order kept, unknown ids and versions 404, at most 3', async (t) => {
  const { headers, account } = await server.client();
  const a = (await call(headers, 'POST', '/pronunciation-dictionaries', { name: 'a', rules: [{ string_to_replace: 'x', type: 'alias', alias: 'A' }] })).body;
  const b = (await call(headers, 'POST', '/pronunciation-dictionaries', { name: 'b', rules: [{ string_to_replace: 'x', type: 'alias', alias: 'B' }] })).body;
  const order = async (...ids) => (await dictionaries.resolveLocators(account.id, ids.map((id) => ({ pronunciation_dictionary_id: id })))).map((r) => r.alias);
  t.same(await order(a.id, b.id), ['A', 'B']);
  t.same(await order(b.id, a.id), ['B', 'A']);
  await t.rejects(order('no-such-dictionary'), { code: 40401 });
  await t.rejects(dictionaries.resolveLocators(account.id, [{ pronunciation_dictionary_id: a.id, version_id: b.version_id }]), { code: 40401, message: /has no version/u });
  await t.rejects(order(a.id, b.id, a.id, b.id), { code: 40001, message: /at most 3 per request/u });
});

t.test('another account\'s dictionary is a 404, and not listed', async (t) => {
  const owner = await server.client();
  const other = await server.client();
  const { id, version_id } = (await call(owner.headers, 'POST', '/pronunciation-dictionaries', { name: 'mine', rules: RULES })).body;
  for (const [method, path, body] of [
    ['GET', `/pronunciation-dictionaries/${id}`],
    ['PATCH', `/pronunciation-dictionaries/${id}`, { name: 'theirs' }],
    ['PATCH', `/pronunciation-dictionaries/${id}`, {}],
    ['DELETE', `/pronunciation-dictionaries/${id}`],
  ]) {
    const r = await call(other.headers, method, path, body);
    t.same([r.status, r.body.errorCode], [404, 40401], `${method} ${path}`);
  }
  t.same((await call(other.headers, 'GET', '/pronunciation-dictionaries')).body, []);
  await t.rejects(dictionaries.resolveLocators(other.account.id, [{ pronunciation_dictionary_id: id, version_id }]), { code: 40401 });
  t.equal((await call(owner.headers, 'GET', `/pronunciation-dictionaries/${id}`)).body.name, 'mine', 'untouched');
});

t.test('a PLS 1.0 file as multipart `file`: graphemes, first alias or phoneme, alphabets', async (t) => {
  const { headers } = await server.client();
  const r = await call(headers, 'POST', '/pronunciation-dictionaries', plsForm(PLS));
  t.equal(r.status, 201);
  t.equal(r.body.name, 'من ملف');
  t.same(r.body.rules, [
    { string_to_replace: 'جدة', type: 'phoneme', phoneme: 'dʒidda', alphabet: 'ipa' },
    { string_to_replace: 'جده', type: 'phoneme', phoneme: 'dʒidda', alphabet: 'ipa' },
    { string_to_replace: 'UN', type: 'alias', alias: 'الأمم المتحدة' },
    { string_to_replace: 'صوت', type: 'phoneme', phoneme: "s['awt", alphabet: 'x-sawt' },
  ]);
  const patched = await call(headers, 'PATCH', `/pronunciation-dictionaries/${r.body.id}`, plsForm('<lexicon version="1.0" alphabet="ipa"><lexeme><grapheme>UN</grapheme><alias>هيئة الأمم</alias></lexeme></lexicon>', null));
  t.equal(patched.status, 200);
  t.same(patched.body.rules.find((x) => x.string_to_replace === 'UN'), { string_to_replace: 'UN', type: 'alias', alias: 'هيئة الأمم' }, 'a PLS file in a PATCH adds (replaces) its lexemes');

  const refused = async (text, why, form = plsForm(text)) => {
    const res = await call(headers, 'POST', '/pronunciation-dictionaries', form);
    t.same([res.status, res.body.errorCode], [400, 40001], String(why));
    t.match(res.body.errorMessage, why);
  };
  await refused('<!DOCTYPE lexicon [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><lexicon version="1.0"><lexeme><grapheme>&xxe;</grapheme><alias>x</alias></lexeme></lexicon>', /DOCTYPE is not accepted/u);
  await refused('<lexicon version="1.0"><lexeme><grapheme>&lol9;</grapheme><alias>x</alias></lexeme></lexicon>', /PLS file: undefined entity \(entities are not expanded/u);
  await refused('<lexicon version="1.0" alphabet="cmu-arpabet"><lexeme><grapheme>a</grapheme><phoneme>AH</phoneme></lexeme></lexicon>', /lexeme at line 1 uses alphabet 'cmu-arpabet'; supported: ipa, x-sawt/u);
  await refused('<lexicon version="1.0"><lexeme><grapheme>a</grapheme></lexeme></lexicon>', /has no <alias> or <phoneme>/u);
  await refused('<lexicon version="1.0"><lexeme><grapheme>a</grapheme><alias>x</alias></lexeme>', /PLS file: .* at line 1/u);
  await refused('<lexicon version="2.0"/>', /version="1.0"/u);
  await refused('<lexicon version="1.0"><lexeme><grapheme>a</grapheme><alias>x</alias></lexeme><lexeme><grapheme>a</grapheme><alias>y</alias></lexeme></lexicon>', /the string 'a' has two rules/u);
  await refused(PLS, /name is required/u, plsForm(PLS, null));
  const noFile = new FormData();
  noFile.set('name', 'x');
  await refused(null, /file is required/u, noFile);
  const big = `<lexicon version="1.0">${'<lexeme><grapheme>كلمة</grapheme><alias>كلمة أخرى</alias></lexeme>'.repeat(20000)}</lexicon>`;
  t.ok(Buffer.byteLength(big) > 1_048_576);
  await refused(big, /The PLS file is larger than the limit of 1048576 bytes/u);
});

t.test('rules are checked and the limits hold: 1,000 rules a dictionary, 100 dictionaries an account', async (t) => {
  const { headers } = await server.client();
  const bad = async (body, why, method = 'POST', path = '/pronunciation-dictionaries') => {
    const r = await call(headers, method, path, body);
    t.same([r.status, r.body.errorCode], [400, 40001], String(why));
    t.match(r.body.errorMessage, why);
  };
  await bad({ rules: RULES }, /name is required/u);
  await bad({ name: 'x' }, /rules must be an array of rules/u);
  await bad({ name: 'x', rules: [{ string_to_replace: 'a', type: 'phoneme', phoneme: 'a' }] }, /rules\[0\]\.alphabet must be one of ipa, x-sawt/u);
  await bad({ name: 'x', rules: [{ string_to_replace: 'a', type: 'substitute', alias: 'b' }] }, /rules\[0\]\.type must be alias or phoneme/u);
  await bad({ name: 'x', rules: [{ string_to_replace: '...', type: 'alias', alias: 'b' }] }, /has no letter or digit/u);
  await bad({ name: 'x', rules: [{ string_to_replace: 'a', type: 'alias', alias: '' }] }, /rules\[0\]\.alias is required/u);
  const many = Array.from({ length: 1001 }, (_, i) => ({ string_to_replace: `w${i}`, type: 'alias', alias: `a${i}` }));
  await bad({ name: 'x', rules: many }, /holds at most 1000 rules; this one would hold 1001/u);
  const full = await call(headers, 'POST', '/pronunciation-dictionaries', { name: 'full', rules: many.slice(0, 1000) });
  t.equal(full.status, 201, '1000 rules pass');
  await bad({ add_rules: [{ string_to_replace: 'one more', type: 'alias', alias: 'x' }] }, /this one would hold 1001/u, 'PATCH', `/pronunciation-dictionaries/${full.body.id}`);
  await bad({ remove_rules: ['not there'] }, /has no rule for 'not there'/u, 'PATCH', `/pronunciation-dictionaries/${full.body.id}`);
  await bad({}, /Nothing to change/u, 'PATCH', `/pronunciation-dictionaries/${full.body.id}`);
  const broken = await fetch(`${api}/pronunciation-dictionaries`, { method: 'POST', headers, body: '{"name":' });
  t.same([broken.status, (await broken.json()).errorCode], [400, 40001], 'malformed JSON');

  for (let i = 1; i < 100; i++) t.equal((await call(headers, 'POST', '/pronunciation-dictionaries', { name: `d${i}`, rules: [] })).status, 201);
  t.equal((await call(headers, 'GET', '/pronunciation-dictionaries')).body.length, 100);
  await bad({ name: 'one too many', rules: [] }, /holds 100 pronunciation dictionaries, the limit \(100\)/u);
});

t.test('the dictionaries scope: keys restricted to other endpoints are refused', async (t) => {
  const ttsOnly = await server.client({ key: { endpoints: ['tts'] } });
  const r = await call(ttsOnly.headers, 'GET', '/pronunciation-dictionaries');
  t.same([r.status, r.body.errorCode], [403, 40302]);
  const scoped = await server.client({ key: { endpoints: ['dictionaries'] } });
  t.equal((await call(scoped.headers, 'GET', '/pronunciation-dictionaries')).status, 200);
  const none = await fetch(`${api}/pronunciation-dictionaries`);
  t.equal(none.status, 401);
});

t.test('OpenAPI describes both request forms and the scope', async (t) => {
  const doc = await (await fetch(`${api}/openapi.json`)).json();
  const post = doc.paths['/pronunciation-dictionaries'].post;
  t.same(Object.keys(post.requestBody.content).sort(), ['application/json', 'multipart/form-data']);
  t.equal(post['x-sawt-scope'], 'dictionaries');
  t.ok(post.responses['201'] && post.responses['404'] && post.responses['400']);
  t.same(Object.keys(doc.paths['/pronunciation-dictionaries/{id}']).sort(), ['delete', 'get', 'patch']);
  t.ok(doc.paths['/pronunciation-dictionaries/{id}'].patch.requestBody.content['application/json'].schema.properties.add_rules);
});
