// The jobs plugin's pure parts: what of Markdown is spoken, how a text is cut into parts and
// sentences, caption files, byte ranges, webhook signatures and targets, and the RF64 header a WAV
// past 4 GiB gets (read back by ffprobe).
import { createHmac } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import t from 'tap';
import { billableChars } from '@sawt/core';
import {
  PartCues, parseAllowList, parseRange, resolveWebhookTarget, rf64Header, sentenceStarts, signature, spokenText, splitParts, ssmlParts, toSrt, toWebVtt, wavFileHeader,
} from '@sawt/plugin-jobs';

t.test('Markdown: markup is dropped, headings are sentences and chapters', async (t) => {
  const md = [
    'Title line', '==========', '', '> a **bold** quote with `code` and ![alt text](img.png)', '', '- item one', '2. item two', '', '| a | b |', '|---|---|', '| c | d |', '',
    '### Heading *three* ###', '[see here](https://x.y) and <https://auto.link> and <b>html</b>', '', '---', '```js', 'const x = 1;', '```', '[ref]: https://example.com',
  ].join('\n');
  const s = spokenText(md, 'auto');
  t.same(s.text.split('\n').filter(Boolean), ['Title line.', 'a bold quote with code and alt text', 'item one', 'item two', 'a، b', 'c، d', 'Heading three.', 'see here and  and html', 'const x = 1;']);
  t.same(s.chapters.map((c) => c.title), ['Title line', 'Heading three']);
  for (const c of s.chapters) t.equal(s.text.slice(c.at, c.at + c.title.length), c.title, `chapter '${c.title}' points at its text`);
  t.equal(spokenText('plain *text* stays', 'plain').text, 'plain *text* stays', 'plain text is not touched');
  t.same(spokenText('first\n\n\nsecond one\nmore', 'auto').chapters.map((c) => c.title), ['first', 'second one']);
  t.equal(spokenText('snake_case_name stays', 'markdown').text, 'snake_case_name stays', 'underscores inside words are no emphasis');
});

t.test('parts: whole sentences up to the size, their characters adding up to the billable count', async (t) => {
  const text = '  جملة أولى قصيرة. جملة ثانية أطول قليلا من الأولى!\nسطر جديد بدون نقطة\nوهل هذا سؤال؟ نعم.  ';
  for (const size of [50, 60, 1000]) {
    const parts = splitParts(text, size);
    t.equal(parts.reduce((n, p) => n + p.chars, 0), billableChars(text), `size ${size}: characters add up`);
    t.equal(parts.map((p) => p.text).join(''), text.trim(), `size ${size}: the parts are the text`);
    for (const p of parts) t.equal(text.slice(p.start, p.start + p.text.length), p.text);
    if (size === 50) t.ok(parts.length > 1 && parts.every((p) => p.text.length <= 60), 'cut at sentence ends');
  }
  const long = 'كلمة '.repeat(100).trim();
  const cut = splitParts(long, 60);
  t.ok(cut.length > 5 && cut.every((p) => p.text.length <= 60), 'a sentence longer than a part is cut at spaces');
  t.same(splitParts('   ', 60), []);
  t.same(sentenceStarts('أ. ب! ج؟ د', 0, 10), [0, 3, 6, 9]);
});

t.test('sentence cues from word timings: in order, covering the part, no text lost', async (t) => {
  const text = 'كلمة أولى هنا. جملة ثانية هنا. وجملة ثالثة أخيرة.';
  const cues = new PartCues(text, 100, 1000);
  // One chunk of 3 s; the engine reported the first six words only (the third sentence has none).
  cues.add({ segment: 0, segmentEnd: true, samples: 3000, words: [0, 300, 600, 1000, 1300, 1600].map((audioMs) => ({ textOffset: 0, length: 1, audioMs })) });
  const out = cues.finish();
  t.same(out.map((c) => [c.s, c.e]), [[0, 1000], [1000, 3000]], 'contiguous, from 0 to the end of the audio');
  t.same(out.map((c) => c.t), ['كلمة أولى هنا.', 'جملة ثانية هنا. وجملة ثالثة أخيرة.'], 'the untimed sentence shares the cue before it');
  t.same(out.map((c) => c.at), [100, 115], 'offsets in the spoken text');
});

t.test('caption files', async (t) => {
  const cues = [{ s: 0, e: 1500, t: 'أول', at: 0 }, { s: 1500, e: 3_723_004, t: 'ثان', at: 5 }];
  t.equal(toWebVtt(cues), 'WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.500\nأول\n\n2\n00:00:01.500 --> 01:02:03.004\nثان\n');
  t.equal(toSrt(cues), '1\n00:00:00,000 --> 00:00:01,500\nأول\n\n2\n00:00:01,500 --> 01:02:03,004\nثان\n');
});

t.test('byte ranges', async (t) => {
  t.same(parseRange(undefined, 100), null);
  t.same(parseRange('bytes=0-9', 100), [0, 9]);
  t.same(parseRange('bytes=90-', 100), [90, 99]);
  t.same(parseRange('bytes=-10', 100), [90, 99]);
  t.same(parseRange('bytes=50-500', 100), [50, 99]);
  t.equal(parseRange('bytes=100-', 100), 'unsatisfiable');
  t.equal(parseRange('bytes=-0', 100), 'unsatisfiable');
  t.same(parseRange('bytes=0-1,5-6', 100), null, 'several ranges: the whole file');
});

t.test('webhook signature and targets', async (t) => {
  const sig = signature('whsec_x', 1700000000, '{"a":1}');
  t.equal(sig, `t=1700000000,v1=${createHmac('sha256', 'whsec_x').update('1700000000.{"a":1}').digest('hex')}`);
  const none = parseAllowList('');
  await t.rejects(resolveWebhookTarget('http://127.0.0.1/', none), { code: 40001 });
  await t.rejects(resolveWebhookTarget('http://[fe80::1]/', none), { code: 40001 });
  await t.rejects(resolveWebhookTarget('http://user:pw@93.184.215.14/', none), { code: 40001, message: /user name/ });
  t.same(await resolveWebhookTarget('https://93.184.215.14/hook', none).then((r) => [r.address, r.family]), ['93.184.215.14', 4], 'a public address');
  const allow = parseAllowList('10.1.0.0/16, internal.example ,::1');
  t.equal((await resolveWebhookTarget('http://10.1.2.3/', allow)).address, '10.1.2.3');
  await t.rejects(resolveWebhookTarget('http://10.2.0.1/', allow), { code: 40001 });
  t.equal((await resolveWebhookTarget('http://[::1]:9/', allow)).address, '::1');
});

t.test('a WAV past 4 GiB is RF64; its header is read by ffprobe', async (t) => {
  t.equal(wavFileHeader(1000, 24000).toString('ascii', 0, 4), 'RIFF');
  const big = wavFileHeader(5_000_000_000, 24000);
  t.equal(big.toString('ascii', 0, 4), 'RF64');
  t.equal(big.readBigUInt64LE(28), 5_000_000_000n, 'ds64 states the data size');
  t.equal(big.readUInt32LE(76), 0xffffffff);
  // The same layout over a small data chunk, decoded.
  const pcm = Buffer.alloc(48000);
  for (let i = 0; i < 24000; i++) pcm.writeInt16LE(Math.round(5000 * Math.sin(i / 8)), 2 * i);
  const dir = mkdtempSync(path.join(tmpdir(), 'sawt-rf64-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'a.wav');
  writeFileSync(file, Buffer.concat([rf64Header(pcm.length, 24000), pcm]));
  const probe = JSON.parse(execFileSync('ffprobe', ['-v', 'error', '-show_format', '-show_streams', '-of', 'json', file], { encoding: 'utf8' }));
  t.equal(probe.format.format_name, 'wav');
  t.equal(probe.streams[0].sample_rate, '24000');
  t.equal(Number(probe.streams[0].duration), 1);
});

t.test('SSML parts: a speak step cut into parts keeps each <mark> before its own word', async (t) => {
  // Three sentences of four words; parts of about 30 characters hold one sentence each.
  const text = 'كلمة أولى ثانية ثالثة. كلمة رابعة خامسة سادسة. كلمة سابعة ثامنة تاسعة.';
  const step = { kind: 'speak', text, marks: [{ name: 'start', words: 0 }, { name: 'mid', words: 5 }, { name: 'late', words: 10 }, { name: 'end', words: 12 }] };
  const parts = ssmlParts([step, { kind: 'pause', ms: 500 }], 30);
  t.equal(parts.length, 3, 'one part a sentence');
  const marksOf = (p) => p.steps.filter((s) => s.kind === 'speak').flatMap((s) => (s.marks ?? []).map((m) => [m.name, s.text.split(/\s+/u)[m.words] ?? '(end)']));
  t.same(marksOf(parts[0]), [['start', 'كلمة']], 'the first part has only its own mark, before its first word');
  t.same(marksOf(parts[1]), [['mid', 'رابعة']], 'a mark in the second sentence is re-indexed to its word there');
  t.same(marksOf(parts[2]), [['late', 'ثامنة'], ['end', '(end)']], 'a mark after the last word rides on the last part');
  t.same(parts[2].steps.at(-1), { kind: 'pause', ms: 500 }, 'the trailing pause stays with the last part');
});
