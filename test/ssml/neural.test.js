// SSML and pronunciation dictionaries on sawt-neural (Piper), issue 32: heard on the tiny stand-in
// voice (Piper's exact graph and length arithmetic, random weights: its audio is noise). Piper's
// noise_w makes each rendering's length vary (about ±4 % at stability 1, where the noise is
// halved), so lengths are compared as the mean of five renderings within 8 %; the 1 s break
// is exact (its zero samples), and the marks, the alignment and the money are deterministic.
import t from 'tap';
import { tokens } from '@sawt/core';
import { charged as chargedTo, parseWav, startServer } from '../helpers/server.js';
import { injectFetch } from '../http/inject.js';
import { standinModelsDir } from '../piper/models-dir.js';
import { seconds } from './listening.js';

const srv = await startServer(t, { runtime: { modelsDir: standinModelsDir(t) } });
const fetch = injectFetch(srv);
const { headers, account } = await srv.client({ balance: '10' });
const MODEL = 'sawt-neural';
const costMicro = srv.app.get(tokens.models).get(MODEL).costPerCharMicro;
const base = { voice_id: 'neural-kareem', stability: 1, streaming: false };
const call = (method, path, body) => fetch(`${srv.api}${path}`, { method, headers, body: JSON.stringify(body) });
const post = (path, body) => call('POST', `/text-to-speech/${MODEL}${path}`, { ...base, ...body });

const TEXT = 'مرحبا بكم في خدمة صوت للنطق العربي';

/** The PCM16 samples of a request's WAV (200 asserted). */
async function speech(t, body) {
  const res = await post('', body);
  t.equal(res.status, 200, `200 for ${body.text.slice(0, 60)}`);
  if (res.status !== 200) t.comment(await res.text());
  return parseWav(Buffer.from(await res.arrayBuffer())).data;
}

/** Mean length (s) of five renderings of `body`. */
async function meanSeconds(t, body) {
  let sum = 0;
  for (let i = 0; i < 5; i++) sum += seconds(await speech(t, body));
  return sum / 5;
}

/** Seconds of zero samples in runs of at least 10 ms (noise has no such runs; silence is one). */
function silentSeconds(pcm) {
  const min = 240;
  let total = 0;
  let run = 0;
  for (let i = 0; i < pcm.length / 2; i++) {
    if (pcm.readInt16LE(i * 2) === 0) run++;
    else {
      if (run >= min) total += run;
      run = 0;
    }
  }
  return (run >= min ? total + run : total) / 24000;
}

/** Seconds of the longest run of zero samples. */
function longestSilence(pcm) {
  let best = 0;
  let run = 0;
  for (let i = 0; i < pcm.length / 2; i++) {
    run = pcm.readInt16LE(i * 2) === 0 ? run + 1 : 0;
    best = Math.max(best, run);
  }
  return best / 24000;
}

const within = (a, b, tol) => Math.abs(a - b) / b <= tol;

const charged = (fn) => chargedTo(t, srv, account.id, fn);

t.test('<speak> is not read as markup: as long as the plain text, the same characters aligned', async (t) => {
  const plain = await meanSeconds(t, { text: TEXT });
  const ssml = await meanSeconds(t, { text: `<speak><p><s>${TEXT}</s></p></speak>` });
  t.ok(within(ssml, plain, 0.08), `<speak> ${ssml.toFixed(3)} s vs plain ${plain.toFixed(3)} s (mean of 5, within 8 %)`);
  const res = await post('/with-timestamps', { text: `<speak>${TEXT}</speak>` });
  t.equal(res.status, 200);
  t.equal((await res.json()).alignment.chars.join(''), TEXT, 'the alignment is the spoken text, no tag in it');
});

t.test('<break time="1s"/> adds 1.000 s of zero samples', async (t) => {
  const none = await speech(t, { text: '<speak>مرحبا بكم في خدمة <break strength="none"/> صوت للنطق العربي</speak>' });
  const paused = await speech(t, { text: '<speak>مرحبا بكم في خدمة <break time="1s"/> صوت للنطق العربي</speak>' });
  const added = silentSeconds(paused) - silentSeconds(none);
  t.ok(Math.abs(added - 1) <= 0.01, `the break adds ${added.toFixed(4)} s of silence (1 s ± 10 ms)`);
  t.ok(longestSilence(paused) >= 0.99, `in one stretch (${longestSilence(paused).toFixed(4)} s), not scattered`);
});

const WRITTEN = 'أعلنت WHO خطتها الجديدة اليوم';
const SPOKEN = 'أعلنت منظمة الصحة العالمية خطتها الجديدة اليوم';
const created = await call('POST', '/pronunciation-dictionaries', { name: 'منظمات', rules: [{ string_to_replace: 'who', type: 'alias', alias: 'منظمة الصحة العالمية' }] });
t.equal(created.status, 201, 'dictionary created');
const dict = await created.json();
const locators = [{ pronunciation_dictionary_id: dict.id }];

t.test('a dictionary alias rule is spoken as its alias: as long as the alias text, unlike the word as written', async (t) => {
  const ruled = await meanSeconds(t, { text: WRITTEN, pronunciation_dictionary_locators: locators });
  const spoken = await meanSeconds(t, { text: SPOKEN });
  const written = await meanSeconds(t, { text: WRITTEN });
  t.ok(within(ruled, spoken, 0.08), `with the rule ${ruled.toFixed(3)} s vs the alias text ${spoken.toFixed(3)} s (within 8 %)`);
  t.ok(!within(ruled, written, 0.15), `vs the word as written ${written.toFixed(3)} s (more than 15 % apart)`);
  const res = await post('/with-timestamps', { text: `<speak>${WRITTEN}</speak>`, pronunciation_dictionary_locators: locators });
  t.equal((await res.json()).alignment.chars.join(''), SPOKEN, 'in SSML too: the alias is what is aligned');
});

t.test('with-timestamps: marks in order, m1 where its word starts, the last at the end', async (t) => {
  const res = await post('/with-timestamps', { text: '<speak><mark name="start"/>مرحبا بكم <mark name="m1"/>في خدمة <break time="300ms"/><mark name="m2"/>صوت للنطق العربي<mark name="end"/></speak>' });
  t.equal(res.status, 200);
  const body = await res.json();
  const ms = seconds(parseWav(Buffer.from(body.audio_base64, 'base64')).data) * 1000;
  t.same(body.marks.map((m) => m.name), ['start', 'm1', 'm2', 'end']);
  const times = body.marks.map((m) => m.timeMs);
  t.equal(times[0], 0, 'a mark before any speech is at 0');
  for (let i = 1; i < times.length; i++) t.ok(times[i] > times[i - 1], `${body.marks[i].name} at ${times[i]} ms after ${times[i - 1]} ms`);
  t.ok(times[2] - times[1] >= 300, 'the 300 ms break lies between m1 and m2');
  t.ok(Math.abs(times[3] - ms) <= 1, `the last mark (${times[3]} ms) is at the end of the audio (${ms.toFixed(0)} ms)`);
  t.equal(body.alignment.chars.join(''), TEXT);
  const at = TEXT.indexOf('في');
  t.ok(Math.abs(times[1] - body.alignment.charStartTimesMs[at]) <= 1, `m1 (${times[1]} ms) is where «في» starts (${body.alignment.charStartTimesMs[at]} ms)`);
});

t.test('<prosody rate="slow"> (0.8) makes it longer', async (t) => {
  const plain = await meanSeconds(t, { text: TEXT });
  const slow = await meanSeconds(t, { text: `<speak><prosody rate="slow">${TEXT}</prosody></speak>` });
  const ratio = slow / plain;
  t.ok(ratio > 1.08 && ratio < 1.4, `slow lasts ${ratio.toFixed(2)} × as long (length_scale 1.25)`);
});

t.test('billing counts the spoken characters: aliases as spoken, never markup', async (t) => {
  const text = `<speak>${WRITTEN} <break time="200ms"/>في <sub alias="منظمة الصحة">WHO</sub><mark name="x"/></speak>`;
  const spoken = `${SPOKEN} في منظمة الصحة`;
  const { out: res, micro } = await charged(() => post('', { text, pronunciation_dictionary_locators: locators }));
  t.equal(res.status, 200);
  await res.arrayBuffer();
  t.equal(micro, [...spoken].length * costMicro, `charged ${micro / costMicro} characters: those of «${spoken}»`);
});
