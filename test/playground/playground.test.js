// The web playground end to end in Debian's Chromium (headless, through
// playwright-core): speak (audio frames reach the page's AudioWorklet while later
// text is still generating, words highlighted, WAV offered), a long text as a job (progress,
// then audio, captions and chapters), clone from an uploaded sample, denoise with before/after
// waveforms. Screenshots go to test-artifacts/.
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { chromium } from 'playwright-core';
import { repoRoot, startServer } from '../helpers/server.js';
import { wsConfig } from '../helpers/ws.js';
import { referenceWav } from '../clone/helpers.js';
import { standinModelsDir } from '../piper/models-dir.js';
import { BOOK_MD, decodeAudio } from '../jobs/helpers.js';
import { FORMATS } from '../formats/decode.js';

const CHROMIUM = process.env.SAWT_CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) {
  t.skip(`no Chromium at ${CHROMIUM} (apt-get install chromium, or set SAWT_CHROMIUM)`);
  process.exit(0);
}
const artifacts = path.join(repoRoot, 'test-artifacts/playground');
mkdirSync(artifacts, { recursive: true });

// sawt-neural (a stand-in Piper voice) is offered too: a model whose voices are not the personas'.
// Jobs in parts of 120 characters, looked for often: a short book still makes several parts.
const config = wsConfig();
const jobsPlugin = config.plugins.find((p) => p.resolve === '@sawt/plugin-jobs');
jobsPlugin.options = { ...jobsPlugin.options, partChars: 120, pollMs: 50, sweepMs: 200 };
const srv = await startServer(t, { config, runtime: { modelsDir: standinModelsDir(t) } });
const { key, headers } = await srv.client();
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--autoplay-policy=no-user-gesture-required'],
});
t.teardown(() => browser.close());
const page = await browser.newPage({ viewport: { width: 1100, height: 1400 } });
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(String(e)));
const shot = (name) => page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });

/** Waits for the page's job after `previous` to end; on a timeout, says what the server and the page saw of it. */
async function pageJobEnds(previous = null) {
  await page.waitForFunction((p) => window.playground.stats.job && window.playground.stats.job.id !== p, previous, { timeout: 30000 });
  try {
    await page.waitForFunction(() => window.playground.stats.job.final, null, { timeout: 120000 });
  } catch (e) {
    const id = await page.evaluate(() => window.playground.stats.job.id);
    const server = await (await fetch(`${srv.api}/jobs/${id}`, { headers })).json();
    const views = await page.evaluate(() => window.playground.stats.job.views.slice(-3));
    // (a failure after the job ended sets final to 'error' and is reported by the caller's assertions)
    throw new Error(`${e.message}; the server's view: ${JSON.stringify(server)}; the page's last views: ${JSON.stringify(views)}; status line: ${await page.textContent('#status')}`);
  }
  return page.evaluate(() => window.playground.stats.job);
}

t.test('the page is served, Arabic right-to-left first, with an English toggle', async (t) => {
  const res = await page.goto(`${srv.base}/playground`);
  t.equal(res.status(), 200);
  t.equal(await page.getAttribute('html', 'dir'), 'rtl');
  t.equal(await page.textContent('h1'), 'صوت — ساحة التجربة');
  await page.click('#lang');
  t.equal(await page.getAttribute('html', 'dir'), 'ltr');
  t.equal(await page.textContent('h1'), 'Sawt — playground');
  await page.click('#lang');
  t.equal(await page.getAttribute('html', 'dir'), 'rtl');
  await page.fill('#key', key.key);
  await page.click('#save-key');
  await page.waitForFunction(() => document.querySelectorAll('#voice option').length > 0);
  t.ok(await page.evaluate(() => sessionStorage.getItem('sawt.key')), 'key kept in sessionStorage');
  const dialects = await page.$$eval('#dialect option', (o) => o.map((x) => x.value));
  t.ok(dialects.includes('egyptian'), 'dialects listed');
  await page.selectOption('#dialect', 'egyptian');
  const egyptian = await page.$$eval('#voice option', (o) => o.map((x) => x.value));
  t.ok(egyptian.length > 0 && egyptian.every((v) => v.startsWith('egyptian')), `voices of the dialect: ${egyptian}`);
  await page.click('#sample');
  await page.waitForFunction(() => document.getElementById('sample-audio').readyState >= 2, null, { timeout: 30000 });
  t.ok(await page.evaluate(() => document.getElementById('sample-audio').duration > 1), 'the voice sample loads and plays');
  await page.selectOption('#dialect', '');
  await page.selectOption('#voice', 'fusha-omar');
  t.same(pageErrors, []);
});

t.test('the voice list follows the model: only its voices, never a stale selection', async (t) => {
  const byModel = async (m) => (await (await fetch(`${srv.api}/voices?model_id=${m}`, { headers })).json()).map((v) => v.voice_id);
  const options = () => page.$$eval('#voice option', (o) => o.map((x) => x.value));
  t.equal(await page.inputValue('#model'), 'sawt-mini');
  await page.selectOption('#model', 'sawt-neural');
  t.same(await options(), await byModel('sawt-neural'), 'sawt-neural: its own voices');
  t.equal(await page.inputValue('#voice'), 'neural-kareem', 'Omar (not a voice of sawt-neural) gave way to the model\'s default voice');
  await page.selectOption('#model', 'sawt-hts');
  t.same(await options(), await byModel('sawt-hts'), 'sawt-hts: every built-in persona');
  t.equal(await page.inputValue('#voice'), 'fusha-ziad', 'the default voice of sawt-hts');
  await page.selectOption('#voice', 'fusha-omar');
  await page.selectOption('#model', 'sawt-mini');
  t.equal(await page.inputValue('#voice'), 'fusha-omar', 'a voice of both models stays selected');
  t.same(pageErrors, []);
});

t.test('speak: audio reaches the AudioWorklet before generation ends, words highlighted, WAV offered', async (t) => {
  await page.click('#speak');
  await page.waitForFunction(() => window.playground.stats.finalAt !== null, null, { timeout: 60000 });
  await page.waitForFunction(() => window.playground.stats.samplesPlayed >= window.playground.stats.samplesReceived * 0.3, null, { timeout: 30000 });
  await shot('speak');
  const s = await page.evaluate(() => window.playground.stats);
  t.ok(s.audioMessages > 1, `${s.audioMessages} audio messages`);
  t.ok(s.samplesReceived > 24000 * 5, `${(s.samplesReceived / 24000).toFixed(1)} s of audio received`);
  t.ok(s.samplesPlayed > 0, `${s.samplesPlayed} samples went through the worklet to the output`);
  t.ok(s.firstPlayedAt < s.finalAt, `playback began ${(s.finalAt - s.firstPlayedAt).toFixed(0)} ms before the last audio arrived`);
  t.ok(s.highlighted > 0, `${s.highlighted} words highlighted`);
  await page.waitForSelector('#download:not([hidden])');
  const wav = await page.evaluate(async () => new Uint8Array(await (await fetch(document.getElementById('download').href)).arrayBuffer()).slice(0, 4));
  t.same(Object.values(wav), [82, 73, 70, 70], 'the download is a WAV file');
  t.same(pageErrors, []);
});

t.test('download in a picked format: every format of the server listed, the file in that format', async (t) => {
  const doc = await (await fetch(`${srv.api}/openapi.json`)).json();
  const served = doc.paths['/text-to-speech/{model_id}'].post.requestBody.content['application/json'].schema.properties.output_format.enum;
  t.same(await page.evaluate(() => [...document.getElementById('format').options].map((o) => o.value)), served, 'the picker lists the OpenAPI enum');
  await page.selectOption('#format', 'mp3_44100_64');
  await page.click('#download-format');
  await page.waitForFunction(() => window.playground.stats.lastDownload?.format === 'mp3_44100_64', null, { timeout: 30000 });
  const link = await page.evaluate(async () => {
    const a = document.getElementById('format-link');
    return { download: a.download, head: [...new Uint8Array(await (await fetch(a.href)).arrayBuffer()).slice(0, 3)] };
  });
  t.equal(link.download, 'sawt-mp3_44100_64.mp3');
  t.ok(String.fromCharCode(...link.head) === 'ID3' || (link.head[0] === 0xff && (link.head[1] & 0xe0) === 0xe0), 'the file is an MP3');
  t.same(pageErrors, []);
});

t.test('long text: a Markdown file as a job, its progress to the end, then audio, captions and chapters', async (t) => {
  t.ok(await page.isVisible('#speak-section') && !(await page.isVisible('#long-section')), 'the speak tab first');
  await page.click('#tab-long');
  t.ok(await page.isVisible('#long-section') && !(await page.isVisible('#speak-section')), 'the long-text tab shows its panel only');
  t.equal(await page.inputValue('#long-format'), 'mp3_44100_64', 'the jobs\' default format preselected');
  const file = path.join(artifacts, 'book.md');
  writeFileSync(file, BOOK_MD);
  await page.setInputFiles('#long-file', file);
  await page.fill('#long-title', 'كتاب البحر');
  await page.click('#long-submit');
  const job = await pageJobEnds();
  t.equal(job.final, 'succeeded', `job ${job.id} succeeded${job.error ? ` (the page: ${job.error})` : ''}`);
  t.equal(await page.textContent('#status'), 'اكتملت المهمة: الصوت والترجمة جاهزان.', 'the page says it is done');

  const server = await (await fetch(`${srv.api}/jobs/${job.id}`, { headers })).json();
  t.equal(server.title, 'كتاب البحر', 'the title went with the job');
  t.equal(server.output_format, 'mp3_44100_64');
  const progress = job.views.map((v) => v.progress);
  t.ok(progress.every((p, i) => i === 0 || p >= progress[i - 1]), `progress shown never went back: ${progress.join(' ')}`);
  t.equal(progress.at(-1), 1, 'it ends at 1');
  t.equal(await page.evaluate(() => document.getElementById('long-progress').value), 1, 'the progress bar is full');
  t.match(await page.textContent('#long-info'), new RegExp(`^اكتملت 100 % · ${server.characters.toLocaleString()} / ${server.characters.toLocaleString()} حرف · ${server.audio_seconds.toFixed(1)} ث من الصوت`), 'status, percent, characters and audio seconds shown');

  const chapters = (await (await fetch(`${srv.api}/jobs/${job.id}/chapters`, { headers })).json()).chapters.map((c) => c.title);
  t.same(job.chapters, chapters, `chapters listed: ${chapters.join(', ')}`);
  t.same(await page.$$eval('#long-chapters button', (b) => b.length), chapters.length, 'one seek button per chapter');
  const vtt = await (await fetch(`${srv.api}/jobs/${job.id}/captions.vtt`, { headers })).text();
  t.ok(job.cues > 1 && job.cues === (vtt.match(/-->/g) ?? []).length && job.srtCues === job.cues, `${job.cues} caption cues, VTT and SRT`);

  // The audio the page offers is the job's MP3, and the player loads it with its caption track.
  const b64 = await page.evaluate(async () => {
    const bytes = new Uint8Array(await (await fetch(document.getElementById('long-audio-link').href)).arrayBuffer());
    let s = '';
    for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return btoa(s);
  });
  const audio = await decodeAudio(Buffer.from(b64, 'base64'), FORMATS.find((f) => f.name === 'mp3_44100_64'));
  t.equal(audio.codec, 'mp3');
  t.ok(Math.abs(audio.seconds - server.audio_seconds) < 0.2, `decoded ${audio.seconds.toFixed(2)} s, the job says ${server.audio_seconds} s`);
  t.ok(audio.rms > 100, `not silence (rms ${audio.rms.toFixed(0)})`);
  t.equal(await page.getAttribute('#long-audio-link', 'download'), 'كتاب البحر.mp3', 'downloaded under the job\'s title');
  await page.waitForFunction(() => document.getElementById('long-audio').duration > 1, null, { timeout: 30000 });
  await page.waitForFunction(() => document.querySelector('#long-audio track')?.track.cues?.length > 0, null, { timeout: 30000 });
  t.equal(await page.evaluate(() => document.querySelector('#long-audio track').track.cues.length), job.cues, 'the player\'s caption track has every cue');
  await shot('long-text');
  await page.click('#tab-speak');
  t.same(pageErrors, []);
});

t.test('SSML and a pronunciation dictionary: the alias spoken, no markup, a mark reached; the download and a job carry them', async (t) => {
  const made = await fetch(`${srv.api}/pronunciation-dictionaries`, {
    method: 'POST', headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'اختصارات', rules: [{ string_to_replace: 'WHO', type: 'alias', alias: 'منظمة الصحة العالمية' }] }),
  });
  t.equal(made.status, 201);
  const dict = await made.json();
  await page.click('#save-key'); // the lists again, with the new dictionary
  await page.waitForFunction((id) => [...document.querySelectorAll('#dictionary option')].some((o) => o.value === id), dict.id);
  await page.selectOption('#dictionary', dict.id);
  await page.check('#ssml');
  const ssml = '<speak>أعلنت WHO اليوم عن خطة جديدة للصحة.<break time="500ms"/><mark name="middle"/>وقالت إن الخطة تشمل تدريب الأطباء في كل القرى.</speak>';
  await page.fill('#text', ssml);
  const runs = await page.evaluate(() => window.playground.stats.speakRuns);
  await page.click('#speak');
  await page.waitForFunction((n) => window.playground.stats.speakRuns > n && window.playground.stats.finalAt !== null, runs, { timeout: 60000 });
  const s = await page.evaluate(() => window.playground.stats);
  // The alignment's characters (spaces aside) are those spoken.
  t.match(s.spokenText.replace(/\s+/gu, ''), /منظمةالصحةالعالمية/, 'the dictionary\'s alias is spoken');
  t.notMatch(s.spokenText, /WHO|[<>]/, 'neither the word it replaces nor any markup');
  t.same(s.marks, ['middle'], 'the mark is reached');
  t.notMatch(await page.textContent('#words'), /[<>]/, 'the words shown leave the tags out');
  await shot('ssml');

  await page.selectOption('#format', 'wav_24000');
  await page.click('#download-format');
  await page.waitForFunction(() => window.playground.stats.lastDownload?.format === 'wav_24000', null, { timeout: 30000 });
  const plainWav = await (await fetch(`${srv.api}/text-to-speech/sawt-mini`, {
    method: 'POST', headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ voice_id: 'fusha-omar', text: ssml, text_type: 'ssml', stability: 0.5, output_format: 'wav_24000' }),
  })).arrayBuffer();
  const downloaded = await page.evaluate(() => window.playground.stats.lastDownload.bytes);
  t.ok(downloaded > plainWav.byteLength, `the download carries the dictionary (${downloaded} B; without it ${plainWav.byteLength} B)`);

  // The long-text tab sends both with the job.
  await page.click('#tab-long');
  await page.fill('#long-text', ssml);
  const previous = await page.evaluate(() => window.playground.stats.job.id);
  await page.click('#long-submit');
  const job = await pageJobEnds(previous);
  t.equal(job.final, 'succeeded', job.error ?? '');
  const vtt = await (await fetch(`${srv.api}/jobs/${job.id}/captions.vtt`, { headers })).text();
  t.match(vtt, /منظمة الصحة العالمية/, 'the job\'s captions show the alias');
  t.notMatch(vtt, /WHO|</, 'and no markup');

  await page.click('#tab-speak');
  await page.uncheck('#ssml');
  await page.selectOption('#dictionary', '');
  t.same(pageErrors, []);
});

t.test('clone: upload a sample, preview, clone; the new voice is selected', async (t) => {
  const sample = path.join(artifacts, 'reference.wav');
  (await import('node:fs')).writeFileSync(sample, await referenceWav(srv, headers));
  await page.setInputFiles('#sample-file', sample);
  await page.click('#preview');
  await page.waitForSelector('#clone:not([disabled])', { timeout: 60000 });
  t.ok(await page.evaluate(() => document.getElementById('preview-audio').src.startsWith('blob:')), 'preview playable');
  await page.fill('#clone-name', 'صوت الاختبار');
  await page.click('#clone');
  await page.waitForFunction(() => document.getElementById('clone-result').dataset.voiceId, null, { timeout: 60000 });
  const id = await page.evaluate(() => document.getElementById('clone-result').dataset.voiceId);
  t.equal(await page.inputValue('#voice'), id, 'the clone is selected');
  const listed = await (await fetch(`${srv.api}/voices`, { headers })).json();
  t.ok(listed.some((v) => v.voice_id === id && v.name === 'صوت الاختبار'), 'the server lists it');
  await shot('clone');
  t.same(pageErrors, []);
});

t.test('denoise: before and after players with waveforms', async (t) => {
  await page.click('#lang');
  await page.setInputFiles('#noisy-file', '/work/shared/testdata/noise/noisy_speech_en_snr0.wav');
  await page.waitForFunction(() => document.getElementById('wave-after').dataset.drawn, null, { timeout: 60000 });
  const r = await page.evaluate(() => ({
    before: document.getElementById('wave-before').dataset.drawn, after: document.getElementById('wave-after').dataset.drawn,
    src: document.getElementById('after').src,
  }));
  t.ok(Number(r.before) > 0 && Number(r.after) > 0, `waveforms drawn (${r.before} and ${r.after} samples)`);
  t.ok(r.src.startsWith('blob:'), 'after player has the denoised audio');
  await shot('denoise-en');
  t.same(pageErrors, []);
});

t.test('examples/browser.html on another origin calls the API through CORS', async (t) => {
  const { createServer } = await import('node:http');
  const { readFile } = await import('node:fs/promises');
  const statics = createServer(async (req, res) => {
    const rel = decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/+/, '');
    if (!/^(examples\/browser\.html|packages\/(client|protocol)\/dist\/[\w/.-]+\.js)$/.test(rel) || rel.includes('..')) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': rel.endsWith('.html') ? 'text/html' : 'text/javascript' }).end(await readFile(path.join(repoRoot, rel)));
  });
  await new Promise((r) => statics.listen(0, '127.0.0.1', r));
  t.teardown(() => statics.close());
  const origin = `http://127.0.0.1:${statics.address().port}`;
  const config = wsConfig();
  const http = config.plugins.find((p) => p.resolve === '@sawt/plugin-transport-http');
  http.options = { ...http.options, cors: { origins: [origin] } };
  const api = await startServer(t, { config });
  const other = await api.client();
  const p = await browser.newPage();
  const logs = [];
  p.on('console', (m) => logs.push(m.text()));
  p.on('pageerror', (e) => logs.push(String(e)));
  t.teardown(() => logs.length && console.error(`browser.html console: ${logs.join(' | ')}`));
  await p.goto(`${origin}/examples/browser.html`);
  await p.fill('#base', api.api);
  await p.fill('#key', other.key.key);
  await p.click('#load');
  await p.waitForFunction(() => document.querySelectorAll('#voice option').length > 0, null, { timeout: 20000 });
  await p.click('#wav');
  await p.waitForFunction(() => document.getElementById('player').duration > 1, null, { timeout: 30000 });
  t.equal(await p.textContent('#out'), '', 'no error shown');
  await p.fill('#key', 'sawt_wrong');
  await p.click('#load');
  await p.waitForFunction(() => document.getElementById('out').textContent, null, { timeout: 20000 });
  t.match(await p.textContent('#out'), /AuthenticationError 40101 \(HTTP 401\)/, 'the typed error reaches the page');
  await p.close();
});

t.test('static files: size', async (t) => {
  const dir = path.join(repoRoot, 'plugins/transport-http/playground');
  const own = (await import('node:fs')).readdirSync(dir).reduce((n, f) => n + statSync(path.join(dir, f)).size, 0);
  t.ok(own < 64 * 1024, `playground files: ${own} bytes (plus @sawt/client's modules)`);
  t.ok(readFileSync(path.join(artifacts, 'speak.png')).length > 1000, 'screenshots kept in test-artifacts/playground');
});
