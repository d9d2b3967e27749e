// SSML and pronunciation dictionaries on jobs (issues 32 and 33): `text_type` and
// `pronunciation_dictionary_locators` at submit. Both are checked before any money is held
// (bad markup 400 with its place, an unknown or another account's dictionary 404 / 40401); each
// part's synthesis reads the prepared steps, so a dictionary's alias is what is spoken, captioned
// and billed, and SSML markup is neither spoken nor billed.
import t from 'tap';
import { billableChars, tokens } from '@sawt/core';
import { pollUntil, startServer } from '../helpers/server.js';
import { injectFetch } from '../http/inject.js';
import { decodeAudio, jobsConfig } from './helpers.js';
import { FORMATS } from '../formats/decode.js';

const server = await startServer(t, { config: jobsConfig() });
const { api } = server;
// Requests reach the routes without a socket (no keep-alive to race while audio is decoded); the multipart ones go over HTTP.
const request = injectFetch(server);
const { account, headers } = await server.client({ balance: '10' });
const MODEL = 'sawt-mini';
const price = server.app.get(tokens.models).get(MODEL).costPerCharMicro;
const VOICE = 'fusha-omar';

async function submitJob(body, h = headers) {
  const res = await request(`${api}/text-to-speech/${MODEL}/jobs`, { method: 'POST', headers: { ...h, 'content-type': 'application/json' }, body: JSON.stringify({ voice_id: VOICE, ...body }) });
  return { status: res.status, body: await res.json() };
}

async function pollJob(id) {
  let job;
  await pollUntil(`job ${id}`, async () => {
    job = await (await request(`${api}/jobs/${id}`, { headers })).json();
    return ['succeeded', 'failed', 'canceled'].includes(job.status);
  }, 120_000, 50);
  return job;
}

async function dictionary(h, rules) {
  const res = await request(`${api}/pronunciation-dictionaries`, { method: 'POST', headers: h, body: JSON.stringify({ name: 'اختصارات', rules }) });
  t.equal(res.status, 201, 'dictionary made');
  return (await res.json()).id;
}

async function finished(t, body) {
  const before = await server.balance(account.id);
  const sub = await submitJob({ output_format: 'wav_24000', ...body });
  t.equal(sub.status, 202, JSON.stringify(sub.body));
  const job = await pollJob(sub.body.job_id);
  t.equal(job.status, 'succeeded', JSON.stringify(job.error));
  const after = await server.balance(account.id);
  const vtt = await (await request(`${api}/jobs/${job.job_id}/captions.vtt`, { headers })).text();
  const audio = await decodeAudio(Buffer.from(await (await request(`${api}/jobs/${job.job_id}/audio`, { headers })).arrayBuffer()), FORMATS.find((f) => f.name === 'wav_24000'));
  return { job, charged: before.balance - after.balance, reserved: after.reserved, vtt, audio };
}

/** The caption text of a WebVTT file: its cue lines, joined by a space. */
const captionText = (vtt) => vtt.split('\n').filter((l) => l && l !== 'WEBVTT' && !l.includes('-->') && !/^\d+$/.test(l)).join(' ');

const SENTENCES = [
  'أعلنت WHO اليوم عن خطة جديدة لمكافحة الأمراض المعدية في المناطق الريفية البعيدة.',
  'وقالت إن الخطة تشمل تدريب الأطباء والممرضين وتوفير اللقاحات للأطفال في كل القرى.',
  'وأضافت أن WHO ستعمل مع الحكومات المحلية خلال السنوات الخمس القادمة لتحقيق هذه الأهداف.',
];

t.test('a dictionary named at submit is read, captioned and billed as its alias in every part', async (t) => {
  const id = await dictionary(headers, [{ string_to_replace: 'WHO', type: 'alias', alias: 'منظمة الصحة العالمية' }]);
  const text = SENTENCES.join(' ');
  const spoken = text.replaceAll('WHO', 'منظمة الصحة العالمية');
  const r = await finished(t, { text, pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: id }] });
  t.equal(r.job.characters, billableChars(spoken), 'the characters are the spoken ones (the alias, not WHO)');
  t.equal(r.charged, billableChars(spoken) * price, 'charged for them, once');
  t.equal(r.reserved, 0);
  const captions = captionText(r.vtt);
  t.notMatch(captions, /WHO/, 'the captions show what is spoken');
  t.equal((captions.match(/منظمة الصحة العالمية/g) ?? []).length, 2, 'the alias in both parts that had WHO');
  t.ok(Math.abs(r.audio.seconds - r.job.audio_seconds) < 0.01 && r.audio.rms > 100, `${r.audio.seconds.toFixed(2)} s of speech`);

  // The same text without the dictionary: WHO is read as written, and billed as written.
  const plain = await finished(t, { text });
  t.equal(plain.job.characters, billableChars(text));
  t.ok(r.audio.seconds > plain.audio.seconds + 1, `the alias is longer to say (${r.audio.seconds.toFixed(2)} s vs ${plain.audio.seconds.toFixed(2)} s)`);
});

t.test('an SSML job: markup neither spoken nor billed, a break heard, parts cut inside the document', async (t) => {
  const ssml = `<speak><p><s>${SENTENCES[0]}</s><s>${SENTENCES[1]}</s></p><break time="2s"/><p>${SENTENCES[2]}</p></speak>`;
  const spoken = SENTENCES.join(' ');
  const r = await finished(t, { text: ssml });
  t.equal(r.job.characters, billableChars(spoken), 'the spoken characters alone are counted');
  t.equal(r.charged, billableChars(spoken) * price, 'and charged');
  const captions = captionText(r.vtt);
  t.notMatch(captions, /[<>]/, 'no markup in the captions');
  t.match(captions, /الأمراض المعدية/);
  const plain = await finished(t, { text: spoken });
  const extra = r.audio.seconds - plain.audio.seconds;
  t.ok(extra > 1.5 && extra < 3, `the 2 s break is heard (${extra.toFixed(2)} s longer than the plain text)`);
  const chapters = await (await request(`${api}/jobs/${r.job.job_id}/chapters`, { headers })).json();
  t.same(chapters.chapters, [], 'no Markdown chapters in an SSML job');

});

t.test('an SSML job with say-as and phoneme content is billed as POST /text-to-speech bills the document (as written)', async (t) => {
  const ssml = `<speak>${SENTENCES[0]} اتصل بنا على <say-as interpret-as="telephone">0551234567</say-as> وقل <phoneme alphabet="x-sawt" ph="s a l a: m">سلام</phoneme> الآن.</speak>`;
  const before = await server.balance(account.id);
  const live = await request(`${api}/text-to-speech/${MODEL}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ voice_id: VOICE, text: ssml, stability: 0.5, streaming: false }) });
  t.equal(live.status, 200);
  const liveCharged = before.balance - (await server.balance(account.id)).balance;
  const r = await finished(t, { text: ssml });
  // Before: the job billed what the say-as and phoneme expand to (the digits read out, [[…]]).
  t.equal(r.charged, liveCharged, `the job charged ${r.charged / price} characters, as the live request (${liveCharged / price})`);
  t.equal(r.job.characters * price, r.charged, 'and says so');
  t.equal(r.reserved, 0);
  t.equal(r.job.progress, 1);
});

t.test('refused before any money: bad markup, an unknown or another account\'s dictionary, malformed locators', async (t) => {
  const other = await server.client({ balance: '1' });
  const theirs = await dictionary(other.headers, [{ string_to_replace: 'WHO', type: 'alias', alias: 'منظمة' }]);
  const before = await server.balance(account.id);
  const cases = [
    [{ text: `<speak>${SENTENCES[0]}<break time="1s"></speak>` }, 400, 40001, /line 1, column \d+|1:\d+/u],
    [{ text: SENTENCES[0], pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: 'no-such-dictionary' }] }, 404, 40401, /dictionar/u],
    [{ text: SENTENCES[0], pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: theirs }] }, 404, 40401, /dictionar/u],
    [{ text: SENTENCES[0], pronunciation_dictionary_locators: [{ version_id: 'x' }] }, 400, 40001, /pronunciation_dictionary_locators\[0\]\.pronunciation_dictionary_id is required/u],
    [{ text: SENTENCES[0], pronunciation_dictionary_locators: 'x' }, 400, 40001, /pronunciation_dictionary_locators must be an array/u],
  ];
  for (const [body, status, code, message] of cases) {
    const r = await submitJob(body);
    t.equal(r.status, status, `${JSON.stringify(body).slice(0, 90)} → ${status}`);
    t.equal(r.body.errorCode, code);
    t.match(r.body.errorMessage, message);
  }
  const after = await server.balance(account.id);
  t.same(after, before, 'nothing reserved or charged');

  // In a multipart upload the locators field holds the JSON array.
  const form = new FormData();
  form.append('voice_id', VOICE);
  form.append('pronunciation_dictionary_locators', JSON.stringify([{ pronunciation_dictionary_id: theirs }]));
  form.append('file', new Blob([SENTENCES.join('\n\n')]), 'news.txt');
  const up = await fetch(`${api}/text-to-speech/${MODEL}/jobs`, { method: 'POST', headers: { 'x-api-key': headers['x-api-key'] }, body: form });
  t.equal(up.status, 404, 'a file with another account\'s dictionary: 404');
  t.equal((await up.json()).errorCode, 40401);
  const bad = new FormData();
  bad.append('voice_id', VOICE);
  bad.append('pronunciation_dictionary_locators', '[{');
  bad.append('file', new Blob([SENTENCES.join('\n\n')]), 'news.txt');
  const badRes = await fetch(`${api}/text-to-speech/${MODEL}/jobs`, { method: 'POST', headers: { 'x-api-key': headers['x-api-key'] }, body: bad });
  t.equal(badRes.status, 400);
  t.match((await badRes.json()).errorMessage, /must be a JSON array/);
});
