// SSML (the documented subset of SSML 1.1) and <break> in plain text, read into a SpeechDocument:
// every tag, the say-as readings through the normalizer, prosody values, billing's spoken text,
// errors with line:column and the tag, and the parser's safety (no DTD, no entity expansion, caps).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ssml = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/ssml/index.js'));
const pp = await import(path.join(repoRoot, 'plugins/engine/dist/frontend/phoneme-passages.js'));
const { normalizeText } = await import(path.join(repoRoot, 'plugins/engine/dist/index.js'));
const { billableChars } = await import('@sawt/core');

const speak = (body, attrs = '') => `<speak${attrs}>${body}</speak>`;
const runs = (doc) => doc.items.filter((i) => i.kind === 'speech' && i.text.trim() !== '');
const refusal = (fn) => {
  try {
    fn();
  } catch (e) {
    return { status: e.status, code: e.code, message: e.message };
  }
  return null;
};

t.test('SSML is chosen by text_type or by a leading <speak, an XML declaration or a DOCTYPE', async (t) => {
  t.ok(ssml.isSsml('<speak>نص</speak>'));
  t.ok(ssml.isSsml('  <?xml version="1.0"?><speak>نص</speak>'));
  t.ok(ssml.isSsml('<!DOCTYPE speak><speak/>'));
  t.ok(ssml.isSsml('نص عادي', 'ssml'));
  t.notOk(ssml.isSsml('نص <speak>'));
  t.match(refusal(() => ssml.parseSpeechText('<voice>نص</voice>', { textType: 'ssml' })).message, /the root element must be <speak>, not <voice> at 1:1/u);
  t.equal(ssml.parseSpeechText('<speak>مرحبا بكم</speak>').markup, 'ssml');
  t.equal(ssml.parseSpeechText('مرحبا <b>بكم</b>').markup, 'plain');
});

t.test('speak, p, s: text runs with their source spans; p and s end sentences; markup is never text', async (t) => {
  const text = speak('<p><s>مرحبا بكم</s><s>في صوت</s></p><p>فقرة ثانية</p>', ' version="1.1" xmlns="http://www.w3.org/2001/10/synthesis" xml:lang="ar-SA"');
  const doc = ssml.parseSpeechText(text);
  t.equal(doc.lang, 'ar-SA');
  t.same(runs(doc).map((r) => r.text), ['مرحبا بكم', 'في صوت', 'فقرة ثانية']);
  for (const r of runs(doc)) t.equal(text.slice(r.source.start, r.source.end), r.text, 'the span is the text as written');
  t.same(doc.items.filter((i) => i.kind === 'boundary').map((b) => b.level), ['sentence', 'sentence', 'paragraph', 'paragraph']);
  const steps = ssml.speechSteps(doc);
  t.same(steps.map((s) => s.text), ['مرحبا بكم.', 'في صوت.', 'فقرة ثانية.']);
  t.notMatch(ssml.ssmlBillableText(doc), /[<>]|speak|xmlns/u);
});

t.test('break: time in ms or s, strength, up to 10 s; consecutive pauses add up', async (t) => {
  const doc = ssml.parseSpeechText(speak('أ<break time="250ms"/>ب<break time="1.5s"/><break strength="strong"/>ج<break/>د'));
  t.same(doc.items.filter((i) => i.kind === 'break').map((b) => b.ms), [250, 1500, 1000, 750]);
  t.same(ssml.speechSteps(doc).filter((s) => s.kind === 'pause').map((s) => s.ms), [250, 2500, 750]);
  t.equal(ssml.parseSpeechText(speak('أ<break time="10s"/>ب')).items[1].ms, 10000);
  const over = refusal(() => ssml.parseSpeechText(speak('نص <break time="10.5s"/> نص')));
  t.equal(over.status, 400);
  t.equal(over.code, 40001);
  t.match(over.message, /<break time="10.5s"> at 1:11 is longer than the limit of 10 s/u);
  t.match(refusal(() => ssml.parseSpeechText(speak('<break time="soon"/>'))).message, /write the time in ms or s/u);
  t.match(refusal(() => ssml.parseSpeechText(speak('<break strength="huge"/>'))).message, /use none, x-weak/u);
  t.match(refusal(() => ssml.parseSpeechText(speak('<break time="1s">نص</break>'))).message, /<break> must be empty at 1:8/u);
});

t.test('plain text: only <break time="…"/> is markup, everything else is read as written', async (t) => {
  const text = 'مرحبا <break time="1.5s" /> بكم & <b>صوت</b> [[marhaba]]';
  const doc = ssml.parseSpeechText(text);
  t.equal(doc.markup, 'plain');
  t.same(doc.items.map((i) => i.kind), ['speech', 'break', 'speech']);
  t.equal(doc.items[1].ms, 1500);
  t.equal(doc.items[2].text, ' بكم & <b>صوت</b> [[marhaba]]');
  t.equal(ssml.ssmlBillableText(doc), 'مرحبا بكم & <b>صوت</b> [[marhaba]]', 'the text as written without the tag (the white space around it one space)');
  t.equal(ssml.parseSpeechText("نص <BREAK time='300ms'> نص").items[1].ms, 300, 'case and quotes as HTML writes them');
  const unclosed = refusal(() => ssml.parseSpeechText('نص أول\nثم <break time="1s" وبعده'));
  t.match(unclosed.message, /^SSML: unclosed <break> at 2:4$/u);
  t.match(refusal(() => ssml.parseSpeechText('نص <break strength="weak"/>')).message, /takes only time/u);
  t.match(refusal(() => ssml.parseSpeechText('نص <break time="20s"/>')).message, /longer than the limit of 10 s/u);
});

t.test('say-as: each interpret-as reads as the normalizer reads the same thing', async (t) => {
  const say = (content, attrs) => runs(ssml.parseSpeechText(speak(`<say-as ${attrs}>${content}</say-as>`)))[0];
  t.equal(say('1234', 'interpret-as="cardinal"').text, normalizeText('1234'));
  t.equal(say('3', 'interpret-as="number" detail="feminine"').text, 'ثلاث');
  t.equal(say('3', 'interpret-as="cardinal"').text, 'ثلاثة');
  t.equal(say('٢٫٥', 'interpret-as="number"').text, normalizeText('2.5'));
  t.equal(say('5', 'interpret-as="ordinal"').text, 'الخامس');
  t.equal(say('5', 'interpret-as="ordinal" detail="feminine"').text, 'الخامسة');
  t.equal(say('2024', 'interpret-as="digits"').text, 'اثنان صفر اثنان أربعة');
  t.equal(say('+966 50-123', 'interpret-as="telephone"').text, 'زائد تسعة ستة ستة خمسة صفر واحد اثنان ثلاثة');
  t.equal(say('15/03/2024', 'interpret-as="date"').text, normalizeText('15/3/2024'));
  t.equal(say('03/15/2024', 'interpret-as="date" format="mdy"').text, normalizeText('15/3/2024'));
  t.equal(say('2024-03-15', 'interpret-as="date" format="ymd"').text, normalizeText('15/3/2024'));
  t.equal(say('03/2024', 'interpret-as="date" format="my"').text, normalizeText('مارس 2024'));
  t.equal(say('15-03', 'interpret-as="date" format="dm"').text, normalizeText('15 مارس'));
  t.equal(say('10:30', 'interpret-as="time"').text, normalizeText('10:30'));
  t.equal(say('7:45 pm', 'interpret-as="time" format="hms12"').text, normalizeText('7:45 pm'));
  t.equal(say('12.50 USD', 'interpret-as="currency"').text, normalizeText('12.50 USD'));
  t.equal(say('100', 'interpret-as="currency" format="SAR"').text, normalizeText('100 SAR'));
  t.equal(say('GPS', 'interpret-as="characters"').text, 'جِي بِي إِسْ');
  t.equal(say('صوت', 'interpret-as="spell-out"').text, 'صاد واو تاء');
  t.equal(say('a.b', 'interpret-as="verbatim"').text, 'إِيه نقطة بِي');
  const r = say('15/03/2024', 'interpret-as="date"');
  t.equal(r.spoken, '15/03/2024', 'billed as written');
  t.equal(r.origin, 'say-as');
  for (const [content, attrs, why] of [
    ['abc', 'interpret-as="cardinal"', /cannot read 'abc': expected a number/u],
    ['0', 'interpret-as="ordinal"', /whole number from 1/u],
    ['12a', 'interpret-as="digits"', /digits only/u],
    ['32/13/2024', 'interpret-as="date"', /day 32 is not 1 to 31/u],
    ['15/03/2024', 'interpret-as="date" format="qq"', /use one of dmy/u],
    ['25:00', 'interpret-as="time"', /expected a time/u],
    ['12.50', 'interpret-as="currency"', /no currency named/u],
    ['3', 'interpret-as="cardinal" detail="plural"', /feminine or masculine/u],
    ['x', 'interpret-as="address"', /unsupported interpret-as="address" on <say-as>/u],
  ]) {
    const e = refusal(() => say(content, attrs));
    t.equal(e?.code, 40001, `${attrs} ${content}`);
    t.match(e?.message, why);
    t.match(e?.message, / at 1:(8|16)\b/u, 'names where the say-as (or its attribute) starts');
  }
  t.match(refusal(() => say('<b>1</b>', 'interpret-as="cardinal"')).message, /<say-as> takes text only, not <b>/u);
});

t.test('sub reads (and bills) its alias; phoneme reads an x-sawt passage, from ipa or x-sawt', async (t) => {
  const doc = ssml.parseSpeechText(speak('<sub alias="منظمة الصحة العالمية">WHO</sub> في <phoneme alphabet="ipa" ph="ʔarˈrijaːdˤ">الرياض</phoneme> و<phoneme alphabet="x-sawt" ph="madi:na">المدينة</phoneme>'));
  const [sub, , ipa, , xs] = runs(doc);
  t.same([sub.origin, sub.text, sub.spoken], ['sub', 'منظمة الصحة العالمية', 'منظمة الصحة العالمية']);
  t.same([ipa.origin, ipa.text.trim(), ipa.spoken], ['phoneme', "[[?ar'rija:dH]]", 'الرياض']);
  t.equal(xs.text.trim(), '[[madi:na]]');
  t.equal(ssml.ssmlBillableText(doc), 'منظمة الصحة العالمية في الرياض والمدينة', 'markup and WHO not billed; alias and phoneme content are');
  t.equal(ssml.ipaToXSawt('dˤ dħ', 'x'), 'dH d|H', 'd then ħ keeps a separator, so it does not read as ض (dH)');
  t.match(refusal(() => ssml.parseSpeechText(speak('<phoneme alphabet="ipa" ph="ʘa">x</phoneme>'))).message, /<phoneme> at 1:8: the IPA symbol 'ʘ' \(U\+0298\) has no x-sawt phoneme/u);
  t.match(refusal(() => ssml.parseSpeechText(speak('<phoneme alphabet="x-sawt" ph="ba]]x">x</phoneme>'))).message, /not a phoneme symbol of the x-sawt notation/u);
  t.match(refusal(() => ssml.parseSpeechText(speak('<phoneme alphabet="arpabet" ph="B AA">x</phoneme>'))).message, /unsupported alphabet="arpabet" on <phoneme> \(supported: ipa, x-sawt\)/u);
  t.match(refusal(() => ssml.parseSpeechText(speak('<sub>WHO</sub>'))).message, /<sub> needs the attribute alias at 1:8/u);
});

t.test('phoneme passages are checked against the model: a symbol it cannot say is a 400 naming it and where', async (t) => {
  const text = speak('نص <phoneme alphabet="ipa" ph="tʃaj">شاي</phoneme> نص');
  t.ok(ssml.parseSpeechText(text, { inventory: pp.espeakInventory('sawt-mini') }), 'espeak says tS');
  const e = refusal(() => ssml.parseSpeechText(text, { inventory: pp.htsInventory('sawt-hts') }));
  t.equal(e.code, 40001);
  t.match(e.message, /sawt-hts cannot say the phoneme 'tS'.*<phoneme> at 1:11/u);
  const inline = refusal(() => ssml.parseSpeechText('مرحبا [[tSaj]] بكم', { inventory: pp.htsInventory('sawt-hts') }));
  t.match(inline.message, /cannot say the phoneme 'tS'.*text at 1:1/u, 'inline [[…]] in plain text too');
});

t.test('lang, prosody, emphasis and mark: voice settings per run, marks in order', async (t) => {
  const doc = ssml.parseSpeechText(speak('أ <lang xml:lang="en-US">hello</lang> <prosody rate="80%" pitch="+2st" volume="-6dB">ب <prosody rate="fast" pitch="-10%" volume="loud">ج</prosody></prosody> <emphasis level="strong">د</emphasis> <mark name="end"/>ه <prosody volume="silent">و</prosody>'));
  const [a, en, b, c, d, h, w] = runs(doc);
  t.equal(a.lang, null);
  t.equal(en.lang, 'en-US');
  t.same(b.prosody, { rate: 0.8, pitchSemitones: 2, volumeDb: -6 });
  t.equal(c.prosody.rate, 0.96, 'nested rates multiply');
  t.equal(c.prosody.pitchSemitones, Math.round((2 + 12 * Math.log2(0.9)) * 1000) / 1000, 'a % pitch is semitones');
  t.equal(c.prosody.volumeDb, 0, 'nested gains add');
  t.equal(d.emphasis, 'strong');
  t.ok(d.prosody.rate < 1 && d.prosody.pitchSemitones > 0 && d.prosody.volumeDb > 0, 'emphasis is slower, higher and louder');
  t.equal(w.prosody.volumeDb, null, 'silent');
  t.same(doc.items.filter((i) => i.kind === 'mark').map((m) => m.name), ['end']);
  const steps = ssml.speechSteps(doc);
  t.same(steps.map((s) => s.kind), ['speak', 'speak', 'speak', 'speak', 'speak', 'speak', 'speak']);
  t.same(steps[4].marks, [{ name: 'end', words: 1 }], 'a mark after spoken text stays in its step, placed by its words (no cut in the speech)');
  t.equal(h.text, 'ه ');
  for (const [markup, why] of [
    ['<prosody rate="5">x</prosody>', /rate="5"> at 1:8 is out of range; accepted: 25% to 400%/u],
    ['<prosody pitch="+200Hz">x</prosody>', /semitones \(\+2st\) or a percentage/u],
    ['<prosody pitch="+13st">x</prosody>', /accepted: -12st to 12st/u],
    ['<prosody volume="+20dB">x</prosody>', /accepted: -40dB to 12dB/u],
    ['<prosody rate="x-fast"><prosody rate="x-fast"><prosody rate="x-fast"><prosody rate="x-fast"><prosody rate="x-fast">x</prosody></prosody></prosody></prosody></prosody>', /nested prosody rate/u],
    ['<prosody duration="2s">x</prosody>', /unsupported attribute duration on <prosody> \(it takes: rate, pitch, volume\) at 1:17/u],
    ['<emphasis level="loud">x</emphasis>', /use strong, moderate, none or reduced/u],
    ['<lang>x</lang>', /<lang> needs the attribute xml:lang/u],
    ['<lang xml:lang="english!">x</lang>', /is not a language tag/u],
    ['<mark/>', /<mark> needs the attribute name at 1:8/u],
  ]) t.match(refusal(() => ssml.parseSpeechText(speak(markup)))?.message, why, markup);
  ssml.checkRateRange(1.2, 1, { id: 'sawt-mini', minRate: 0.5, maxRate: 2 }, '1:1');
  t.match(refusal(() => ssml.checkRateRange(1.4, 1.2, { id: 'sawt-hts', minRate: 0.5, maxRate: 1.5 }, '2:3')).message, /at 2:3 times speed 1.2 is 1.68, outside the rates sawt-hts can speak \(0.5 to 1.5\)/u);
});

t.test('errors name the tag and its line:column; unsupported tags are named', async (t) => {
  const cases = [
    ['<speak>مرحبا <break time="1s"> بكم</speak>', /^SSML: unclosed <break> at 1:14$/u],
    ['<speak>\nمرحبا\n  <audio src="x.mp3"/></speak>', /^SSML: unsupported tag <audio> \(supported: speak, p, s, break, say-as, sub, phoneme, lang, prosody, emphasis, mark\) at 3:3$/u],
    ['<speak>نص', /^SSML: unclosed <speak> at 1:1$/u],
    ['<speak><p>نص</s></speak>', /<\/s> does not close <p> \(opened at 1:8\) at 1:13/u],
    ['<speak>نص <break time="1s"</speak>', /'<' in the value|unclosed <break>/u],
    ['<speak>نص <break time=1s/></speak>', /attribute time of <break> needs a quoted value at 1:18/u],
    ['<speak><break time="1s" time="2s"/></speak>', /attribute time given twice on <break>/u],
    ['<speak>AT&T</speak>', /'&' must be written &amp; at 1:10/u],
    ['<speak>نص</speak> بعده', /text after the root element at 1:18/u],
    ['<?xml version="1.0"?><voice name="x">نص</voice>', /the root element must be <speak>, not <voice> at 1:22/u],
    ['<speak><speak>نص</speak></speak>', /<speak> inside <speak>/u],
    ['<speak><?php echo 1 ?></speak>', /processing instructions/u],
    ['<speak><!-- unclosed', /unclosed comment/u],
  ];
  for (const [text, why] of cases) {
    const e = refusal(() => ssml.parseSpeechText(text));
    t.equal(e?.status, 400, text);
    t.equal(e?.code, 40001, text);
    t.match(e?.message, why, text);
  }
  const ok = ssml.parseSpeechText('<?xml version="1.0" encoding="UTF-8"?>\n<speak>أ &amp; ب &#1578; &#x062A; <!-- ملاحظة --> <![CDATA[<ج>]]></speak>');
  t.equal(ssml.ssmlBillableText(ok), 'أ & ب ت ت <ج>', 'the five entities, character references and CDATA are text; comments are nothing');
});

t.test('no DTD, no entity expansion (XXE, billion laughs), capped nesting and element count', async (t) => {
  const xxe = '<?xml version="1.0"?>\n<!DOCTYPE speak [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<speak>&xxe;</speak>';
  const e1 = refusal(() => ssml.parseSpeechText(xxe));
  t.equal(e1.code, 40001);
  t.match(e1.message, /<!DOCTYPE> is not accepted \(no DTD or entity declarations are read\) at 2:1/u);
  t.notMatch(e1.message, /root:/u);
  let laughs = '<!DOCTYPE lolz [<!ENTITY lol "lol">';
  for (let i = 1; i < 10; i++) laughs += `<!ENTITY lol${i} "${`&lol${i - 1 || ''};`.repeat(10)}">`;
  laughs += ']><speak>&lol9;</speak>';
  t.match(refusal(() => ssml.parseSpeechText(laughs)).message, /<!DOCTYPE> is not accepted/u);
  t.match(refusal(() => ssml.parseSpeechText('<speak>&lol9;</speak>')).message, /unknown entity &lol9; \(entities are not expanded/u);
  t.match(refusal(() => ssml.parseSpeechText('<speak>&#0;</speak>')).message, /not a character XML allows/u);
  const deep = `<speak>${'<prosody>'.repeat(40)}نص${'</prosody>'.repeat(40)}</speak>`;
  t.match(refusal(() => ssml.parseSpeechText(deep)).message, /<prosody> nests deeper than 32 elements at 1:/u);
  const many = `<speak>${'<mark name="m"/>'.repeat(1001)}</speak>`;
  t.match(refusal(() => ssml.parseSpeechText(many)).message, /more than 1000 elements \(<mark>\)/u);
  t.ok(ssml.parseSpeechText(`<speak>${'<mark name="m"/>'.repeat(999)}</speak>`), '1000 elements pass');
  t.match(refusal(() => ssml.parseSpeechText('<speak><mark name="a"/><mark name="b"/></speak>', { limits: { maxDepth: 32, maxElements: 2 } })).message, /more than 2 elements/u, 'the caps are options');
});

t.test('billing counts the spoken characters: text content, sub aliases, say-as as written, never markup', async (t) => {
  const doc = ssml.parseSpeechText(speak('<p>اتصل <say-as interpret-as="telephone">0501234567</say-as> <break time="1s"/>أو راسل <sub alias="صوت">S</sub></p>'));
  const text = ssml.ssmlBillableText(doc);
  t.equal(text, 'اتصل 0501234567 أو راسل صوت');
  t.equal(ssml.ssmlBillableChars(doc), billableChars(text));
  t.equal(ssml.ssmlBillableChars(ssml.parseSpeechText(speak('<break time="2s"/><mark name="x"/>'))), 0, 'markup alone is nothing to bill');
  t.equal(ssml.ssmlBillableText(ssml.parseSpeechText(speak('<s>أ</s><s>ب</s>'))), 'أ ب', 'a sentence end between runs is a space');
  t.equal(ssml.ssmlBillableText(ssml.parseSpeechText('  مرحبا  بكم في\tصوت  ')), 'مرحبا  بكم في\tصوت', 'plain text without <break> bills its trimmed text, as before');
  t.equal(ssml.ssmlBillableText(ssml.parseSpeechText('مرحبا<break time="1s"/>بكم')), 'مرحبا بكم', 'a break between words is one space');
  t.equal(ssml.ssmlBillableText(ssml.parseSpeechText('مرحبا <break time="1s"/> بكم')), 'مرحبا بكم', 'with the white space written around it: one space, the tag\'s place billed once');
});
