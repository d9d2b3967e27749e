// No text gives a 5xx: random text (money past 10^15, Latin words, marks, emoji, [[ ]], bare
// Unicode) sent to text-to-speech with sawt-mini and sawt-hts (bundled models) answers 200 with
// audio or 400 with errorCode 40001, never a server error.
import t from 'tap';
import fc from 'fast-check';
import { startServer } from '../helpers/server.js';
import { injectFetch } from './inject.js';

const PIECES = ['$99999999999999999.99', '99999999999999999.99 ريال', '$9999999999999999', 'كتاباً', 'الـAI', 'بـGoogle', 'GPS', 'München', '٣٫٥٪', '15/3/2024',
  '10:30', 'القرن 21', 'د. سارة', '😀', '\u0651\u064b', '[[maRHaba]]', '[[', '\ue010x\ue011', 'www.sawt.ai', 'MP3', '—', '…', '؟!', '\u200f', 'ـــ'];
const text = fc.array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ unit: 'grapheme', maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 5 })), { minLength: 1, maxLength: 8 })
  .map((xs) => `مرحبا بكم في ${xs.join(' ')}`);

t.test('text-to-speech answers 200 or 400 40001 for any text', { timeout: 180000 }, async (t) => {
  const srv = await startServer(t);
  const { headers } = await srv.client();
  const fetch = injectFetch(srv);
  const models = (await (await fetch(`${srv.api}/models`, { headers })).json()).map((m) => m.model_id);
  const voices = await (await fetch(`${srv.api}/voices`, { headers })).json();
  const voiceFor = { 'sawt-mini': 'fusha-omar', 'sawt-hts': 'fusha-ziad' };
  const targets = models.filter((m) => voiceFor[m] && voices.some((v) => v.voice_id === voiceFor[m]));
  t.same(targets, ['sawt-mini', 'sawt-hts'], 'both models under test');
  const seen = {};
  await fc.assert(fc.asyncProperty(text, fc.constantFrom(...targets), async (input, model) => {
    const res = await fetch(`${srv.api}/text-to-speech/${model}`, { method: 'POST', headers, body: JSON.stringify({ text: input, voice_id: voiceFor[model], stability: 0.5, speed: 1, streaming: false }) });
    const body = Buffer.from(await res.arrayBuffer());
    seen[res.status] = (seen[res.status] ?? 0) + 1;
    if (res.status === 200) {
      if (body.length <= 44) throw new Error(`empty audio for ${JSON.stringify(input)}`);
      return;
    }
    const err = JSON.parse(body.toString());
    if (res.status !== 400 || err.errorCode !== 40001) throw new Error(`${model} ${res.status} ${body} for ${JSON.stringify(input)}`);
  }), { numRuns: 20, examples: [['😀😀 😀😀 😀😀 😀😀', 'sawt-mini'], ['— … ؟! — … — …', 'sawt-hts'], ['Google Apple Samsung', 'sawt-hts'], ['مرحبا بكم في $99999999999999999.99', 'sawt-mini'], ['مرحبا بكم في 99999999999999999.99 ريال', 'sawt-mini'], ['مرحبا بكم في $9999999999999999', 'sawt-mini']] });
  t.comment(`statuses: ${JSON.stringify(seen)}`);
  t.ok(seen[200] > 0, 'some texts were spoken');
  t.ok(seen[400] > 0, 'texts with nothing to speak were refused with 40001');
});
