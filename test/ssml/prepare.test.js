// prepareSpeechText: the paid path's one call before money is taken. Markup, dictionary rules,
// the model's phonemes and rates, the text rule on the spoken text, the steps for the back end.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const { prepareSpeechText } = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/ssml/index.js'));
const pp = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/phoneme-passages.js'));

const hts = { id: 'sawt-hts', inventory: pp.htsInventory('sawt-hts'), minRate: 0.5, maxRate: 2 };
const mini = { id: 'sawt-mini', inventory: pp.espeakInventory('sawt-mini'), minRate: 0.5, maxRate: 2 };
const refusal = (fn) => {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return null;
};

t.test('SSML with dictionary rules: the document, the billed text, the steps', async (t) => {
  const r = prepareSpeechText({
    text: '<speak>زرنا الرياض <break time="700ms"/> مع <sub alias="منظمة الصحة العالمية">WHO</sub><mark name="m"/> وبالرياض UN.</speak>',
    rules: [{ string_to_replace: 'الرياض', type: 'phoneme', phoneme: 'ʔarrijaːdˤ', alphabet: 'ipa' }, { string_to_replace: 'UN', type: 'alias', alias: 'الأمم المتحدة' }],
    speed: 1, model: hts,
  });
  t.equal(r.billableText, 'زرنا الرياض مع منظمة الصحة العالمية وبالرياض الأمم المتحدة.', 'markup not billed; aliases billed as spoken');
  t.same(r.steps.map((s) => s.kind), ['speak', 'pause', 'speak']);
  t.equal(r.steps[0].text, 'زرنا [[?arrija:dH]]');
  t.equal(r.steps[1].ms, 700);
  t.equal(r.steps[2].text, 'مع منظمة الصحة العالمية [[wabirrija:dH]] الأمم المتحدة.');
  t.same(r.steps[2].marks, [{ name: 'm', words: 4 }], 'the mark inside the step, before its fifth word');
});

t.test('plain text takes breaks and rules too', async (t) => {
  const r = prepareSpeechText({ text: 'مرحبا بكم في صوت <break time="1s"/> مع WHO', rules: [{ string_to_replace: 'who', type: 'alias', alias: 'المنظمة' }], speed: 1, model: mini });
  t.equal(r.document.markup, 'plain');
  t.same(r.steps.map((s) => s.kind), ['speak', 'pause', 'speak']);
  t.equal(r.billableText, 'مرحبا بكم في صوت مع المنظمة', 'the white space around a break is one space');
});

t.test('400s before admission: a rule\'s phoneme the model cannot say, a rate out of range, too little spoken text', async (t) => {
  const rules = [{ string_to_replace: 'شاي', type: 'phoneme', phoneme: 'tʃaj', alphabet: 'ipa' }];
  const text = 'نشرب الشاي معا كل يوم';
  t.ok(prepareSpeechText({ text, rules, speed: 1, model: mini }), 'espeak says tS');
  const e = refusal(() => prepareSpeechText({ text, rules, speed: 1, model: hts }));
  t.equal(e.code, 40001);
  t.match(e.message, /sawt-hts cannot say the phoneme 'tS'/u);
  const rate = refusal(() => prepareSpeechText({ text: '<speak>نص أول <prosody rate="x-fast">سريع جدا هنا</prosody></speak>', speed: 1.2, model: { ...hts, maxRate: 1.5 } }));
  t.match(rate.message, /prosody rate at 1:38 times speed 1.2 is 1.68, outside the rates sawt-hts can speak \(0.5 to 1.5\)/u);
  const short = refusal(() => prepareSpeechText({ text: '<speak><break time="2s"/>مرحبا <mark name="a"/></speak>', speed: 1, model: mini }));
  t.match(short.message, /at least 3 words and 10 characters \(counted on the spoken text, without markup\)/u);
  t.ok(prepareSpeechText({ text: '<speak>مرحبا</speak>', speed: 1, model: mini, textRule: false }), 'a WebSocket piece is checked at its flush instead');
});

t.test('SSML in fragments: a cut closes the open elements and the rest reopens them; a split tag waits', async (t) => {
  const { cutSsml, endsInsideMarkup, parseSpeechText, ssmlBillableText } = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/ssml/index.js'));
  const text = '<speak><prosody rate="slow">جملة أولى. <emphasis>جملة ثانية.</emphasis> جملة <break time="1.5s"/>ثالثة</prosody></speak>';
  const cut = cutSsml(text, text.indexOf('أولى.') + 5);
  t.equal(cut.head, '<speak><prosody rate="slow">جملة أولى.</prosody></speak>');
  t.equal(cut.rest, '<speak><prosody rate="slow"> <emphasis>جملة ثانية.</emphasis> جملة <break time="1.5s"/>ثالثة</prosody></speak>');
  const head = parseSpeechText(cut.head);
  const rest = parseSpeechText(cut.rest);
  t.equal(head.items[0].prosody.rate, 0.8);
  t.equal(rest.items.find((i) => i.kind === 'speech' && i.emphasis).prosody.rate, 0.744, 'the rest keeps the open prosody');
  t.equal(`${ssmlBillableText(head)} ${ssmlBillableText(rest)}`, ssmlBillableText(parseSpeechText(text)), 'nothing lost, nothing billed twice');

  const inTag = text.indexOf('1.5s') + 2; // a sentence end inside an attribute value
  const moved = cutSsml(text, inTag);
  t.same(moved, {
    head: '<speak><prosody rate="slow">جملة أولى. <emphasis>جملة ثانية.</emphasis> جملة </prosody></speak>',
    rest: '<speak><prosody rate="slow"><break time="1.5s"/>ثالثة</prosody></speak>',
  }, 'the cut moves before the tag it fell in');
  t.ok(parseSpeechText(moved.head) && parseSpeechText(moved.rest));
  t.ok(endsInsideMarkup('<speak>نص <break ti'));
  t.ok(endsInsideMarkup('<speak>نص &am'));
  t.notOk(endsInsideMarkup('<speak>نص <break time="1s"/>'));
  t.equal(cutSsml('<spe', 4), null, 'nothing complete yet');
});
