// Dialect voices of sawt-hts: the dialect files' `hts` rules change the HTS voice's phones and labels
// (golden cases per dialect), /g/ is said as k with a voiced closure (more voiced frames there), the
// dialect prosody changes the audio, every dialect voice is listed and speaks over HTTP and the
// WebSocket, and `sawt text phonemize --model sawt-hts` shows the phones.
import { spawn } from 'node:child_process';
import path from 'node:path';
import t from 'tap';
import { startServer, tempDir, repoRoot, parseWav, pcmStats } from '../helpers/server.js';
import { ready, wsConfig } from '../helpers/ws.js';
import { ENGINE, VOICE_FILE } from './helpers.js';

const { loadDialects, BUILTIN_DIALECTS_DIR, textToPhones, textToLabels, textToUtterances, htsParameters, DEFAULT_LABEL_OPTIONS } = await import(ENGINE);
const dialects = loadDialects([BUILTIN_DIALECTS_DIR]);
const rewrite = (d) => (dialects.get(d).hasHtsRules ? (p) => dialects.get(d).applyHts(p) : undefined);
const phones = (text, d) => textToPhones(text, DEFAULT_LABEL_OPTIONS, rewrite(d));

const VOICES = { egyptian: 'egyptian-adel', hijazi: 'hijazi-hani', najdi: 'najdi-saad', emirati: 'emirati-rashid', kuwaiti: 'kuwaiti-fahad' };

// Golden phones (fully diacritized words, so no diacritizer is involved).
const GOLDEN = {
  fusha: { 'قَالَ': 'q aa l a', 'جَمِيل': 'j a m ii l', 'ثَلَاث': '^ a l aa ^', 'ذَهَب': 'th a h a b', 'ظُهْر': 'Z u h r', 'كِتَاب': 'k i t aa b', 'يَقُولُ': 'y A q uu l u' },
  egyptian: { 'قَالَ': 'ah aa l a', 'جَمِيل': 'k a m ii l', 'ثَلَاث': 't a l aa t', 'ذَهَب': 'd a h a b', 'ظُهْر': 'D u h r', 'كِتَاب': 'k i t aa b', 'يَقُولُ': 'y a ah uu l u' },
  hijazi: { 'قَالَ': 'ah aa l a', 'جَمِيل': 'j a m ii l', 'ثَلَاث': 't a l aa t', 'ذَهَب': 'd a h a b', 'ظُهْر': 'D u h r', 'كِتَاب': 'k i t aa b', 'يَقُولُ': 'y a ah uu l u' },
  najdi: { 'قَالَ': 'k aa l a', 'جَمِيل': 'j a m ii l', 'ثَلَاث': '^ a l aa ^', 'ذَهَب': 'th a h a b', 'ظُهْر': 'Z u h r', 'كِتَاب': 't ch i t aa b', 'يَقُولُ': 'y a k uu l u', 'لَكِ': 'l a t ch i' },
  emirati: { 'قَالَ': 'k aa l a', 'جَمِيل': 'y a m ii l', 'ثَلَاث': '^ a l aa ^', 'كِتَاب': 't ch i t aa b', 'يَقُولُ': 'y a k uu l u' },
  kuwaiti: { 'قَالَ': 'k aa l a', 'جَمِيل': 'y a m ii l', 'ثَلَاث': '^ a l aa ^', 'كِتَاب': 't ch i t aa b', 'يَقُولُ': 'y a k uu l u' },
};

for (const [d, words] of Object.entries(GOLDEN)) {
  t.test(`${d}: the HTS phones of dialect-marked words`, async (t) => {
    for (const [w, expected] of Object.entries(words)) t.equal(phones(w, d), expected, w);
    // Words without the sounds keep the MSA phones.
    t.equal(phones('سَمَاءٌ وَبَحْرٌ', d), phones('سَمَاءٌ وَبَحْرٌ', 'fusha'));
  });
}

t.test('the rules change the labels; /g/ is labelled k and marked for a voiced closure', async (t) => {
  const text = 'قَالَ الرَّجُلُ كَلَامًا جَمِيلًا.';
  const fusha = textToLabels(text)[0];
  for (const d of Object.keys(VOICES)) t.not(textToLabels(text, DEFAULT_LABEL_OPTIONS, rewrite(d))[0].join('\n'), fusha.join('\n'), `${d} labels differ`);
  const [najdi] = textToUtterances(text, DEFAULT_LABEL_OPTIONS, rewrite('najdi'));
  t.match(najdi.labels[1], /^x\^pau-k\+aa=l@/, 'ق of قال: the voice\'s k');
  t.same(najdi.voicedClosures, [1], 'only that k gets a voiced closure (the ك of كلاما is a plain k)');
  t.same(textToUtterances(text, DEFAULT_LABEL_OPTIONS, rewrite('hijazi'))[0].voicedClosures, [], 'Hijazi has no /g/');
  const [egyptian] = textToUtterances(text, DEFAULT_LABEL_OPTIONS, rewrite('egyptian'));
  t.equal(egyptian.voicedClosures.length, 2, 'Egyptian ج (of الرجل and جميلا) is /g/');
});

t.test('a voiced closure voices most of the /g/ segment; a plain k is voiceless', async (t) => {
  const [u] = textToUtterances('قَالَ لِي صَدِيقِي إِنَّ الطَّرِيقَ قَرِيبٌ.', DEFAULT_LABEL_OPTIONS, rewrite('najdi'));
  t.ok(u.voicedClosures.length >= 3, `${u.voicedClosures.length} /g/ segments`);
  const share = (p) => {
    let v = 0, n = 0;
    for (const i of u.voicedClosures) for (let f = p.labelFrames[i]; f < p.labelFrames[i + 1]; f++, n++) if (!Number.isNaN(p.lf0[f])) v++;
    return v / n;
  };
  const [plain] = await htsParameters({ voicePath: VOICE_FILE, utterances: [u.labels] });
  const [voiced] = await htsParameters({ voicePath: VOICE_FILE, utterances: [u.labels], voicedClosures: [u.voicedClosures] });
  t.equal(plain.labelFrames.length, u.labels.length, 'a start frame per label');
  t.ok(share(plain) < 0.35, `as k: ${(share(plain) * 100).toFixed(0)} % voiced`);
  t.ok(share(voiced) > 0.55, `with the voiced closure: ${(share(voiced) * 100).toFixed(0)} % voiced`);
});

t.test('every dialect voice is listed and speaks over HTTP; the dialect changes the audio', async (t) => {
  const srv = await startServer(t);
  const { headers } = await srv.client();
  const voices = await (await fetch(`${srv.api}/voices`, { headers })).json();
  const list = voices.voices ?? voices;
  const text = 'قَالَ الرَّجُلُ إِنَّ الطَّقْسَ جَمِيلٌ وَالْقَمَرُ كَبِيرٌ.';
  const wav = async (voice_id) => {
    const res = await fetch(`${srv.api}/text-to-speech/sawt-hts`, { method: 'POST', headers, body: JSON.stringify({ voice_id, text, stability: 0.5, streaming: false }) });
    t.equal(res.status, 200, `${voice_id}: status`);
    return parseWav(Buffer.from(await res.arrayBuffer()));
  };
  const base = await wav('fusha-ziad');
  for (const [d, voice_id] of Object.entries(VOICES)) {
    const v = list.find((x) => x.voice_id === voice_id);
    t.ok(v, `${voice_id} listed`);
    t.same(v?.dialect, [d]);
    const w = await wav(voice_id);
    const s = pcmStats(w.data);
    t.ok(s.seconds > 1.5 && s.rms > 500, `${voice_id}: ${s.seconds.toFixed(2)} s, rms ${s.rms.toFixed(0)}`);
    t.not(w.data.length, base.data.length, `${voice_id}: not the fusha audio`);
  }
});

t.test('dialect voices of sawt-hts over the WebSocket', async (t) => {
  const srv = await startServer(t, { config: wsConfig() });
  const owner = await srv.client();
  for (const voice_id of Object.values(VOICES)) {
    const c = await ready(srv, owner.key.key, { voice_id, model_id: 'sawt-hts' });
    t.same(c.errors(), [], `${voice_id}: initialized`);
    c.send({ type: 'text', text: 'قَالَ الرَّجُلُ إِنَّ الْجَوَّ جَمِيلٌ الْيَوْمَ.', flush: true });
    await c.until(() => c.audio().find((m) => m.isFinal));
    t.ok(c.pcmBytes() / 48000 > 1, `${voice_id}: ${(c.pcmBytes() / 48000).toFixed(2)} s of audio`);
    c.send({ type: 'closeConnection' });
    await c.closed;
  }
});

t.test('sawt text phonemize --model sawt-hts --dialect D --json', { timeout: 120000 }, async (t) => {
  const dir = tempDir(t);
  const run = (args) => new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'packages/cli/bin/sawt.js'), 'text', 'phonemize', ...args], { env: { ...process.env, SAWT_DATA_DIR: dir, SAWT_MODELS_DIR: path.join(dir, 'models') }, cwd: repoRoot });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  const eg = await run(['قَالَ', '--dialect', 'egyptian', '--model', 'sawt-hts', '--json']);
  t.equal(eg.code, 0, eg.stderr);
  t.same(JSON.parse(eg.stdout), { input: 'قَالَ', output: 'ah aa l a' });
  const espeak = await run(['قَالَ', '--dialect', 'egyptian']);
  t.equal(espeak.stdout.trim(), "[[?'a:la]]", 'without --model: espeak mnemonics as before');
  const bad = await run(['قَالَ', '--model', 'nope']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /--model must be one of sawt-mini, sawt-hts/);
});
