// The playground page: @sawt/client (served beside this file, as built) over this
// server's API. Text-to-speech plays through an AudioWorklet as the WebSocket
// delivers it; window.playground.stats lets the end-to-end test see what happened.
import { SawtClient, SawtError, OUTPUT_FORMATS, pcmToWav, pcm16ToFloat32 } from './client/index.js';
import { STRINGS } from './i18n.js';
import { setupLongText, setupTabs } from './long-text.js';

const $ = (id) => document.getElementById(id);
const RATE = 24000;
const stats = { audioMessages: 0, samplesReceived: 0, samplesPlayed: 0, firstPlayedAt: null, finalAt: null, highlighted: 0, speakRuns: 0, spokenText: '', marks: [] };
window.playground = { stats };

let lang = sessionStorage.getItem('sawt.lang') ?? 'ar';
let client = null;
let voices = [];
let models = [];
const t = (k) => STRINGS[lang][k] ?? k;

function applyLang() {
  document.documentElement.lang = lang;
  document.documentElement.dir = lang === 'ar' ? 'rtl' : 'ltr';
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  $('lang').textContent = t('lang');
  document.title = t('title');
  fillDialects();
}

function status(msg, isError = false) {
  $('status').textContent = msg;
  $('status').className = isError ? 'error' : '';
}
function fail(e) {
  status(e instanceof SawtError ? `${e.errorCode || ''} ${e.message}` : String(e?.message ?? e), true);
  console.error(e);
}

async function useKey(key) {
  if (!key) return status(t('needKey'), true);
  sessionStorage.setItem('sawt.key', key);
  client = new SawtClient({ baseUrl: `${location.origin}/api/v1`, apiKey: key, retry: { maxRetries: 2 } });
  try {
    models = await client.models();
    $('model').replaceChildren(...models.map((m) => new Option(m.model_name, m.model_id)));
    voices = await client.voices();
    fillDialects();
    await fillDictionaries();
    $('preview').disabled = !sampleBlob;
    status(t('loaded'));
  } catch (e) { fail(e); }
}

/** The account's pronunciation dictionaries (none listed when the key lacks the dictionaries scope). */
async function fillDictionaries() {
  const current = $('dictionary').value;
  let list = [];
  try { list = await client.pronunciationDictionaries.list(); } catch (e) { console.warn('pronunciation dictionaries not listed:', e.message); }
  $('dictionary').replaceChildren(new Option(t('noDictionary'), ''), ...list.map((d) => new Option(d.name, d.id)));
  if (list.some((d) => d.id === current)) $('dictionary').value = current;
}

/** What shapes the reading beside the text: text_type (the SSML box) and the chosen dictionary. */
function speechTextOptions() {
  return {
    ...($('ssml').checked && { text_type: 'ssml' }),
    ...($('dictionary').value && { pronunciation_dictionary_locators: [{ pronunciation_dictionary_id: $('dictionary').value }] }),
  };
}

/** The words a reader sees of the text: SSML's tags left out. */
const shownText = (text) => ($('ssml').checked ? text.replace(/<[^>]*>/gu, ' ') : text).replace(/\s+/gu, ' ').trim();

/** The voices that speak on the chosen model (GET /voices lists each voice's models). */
const modelVoices = () => voices.filter((v) => !v.models || v.models.includes($('model').value));

function fillDialects() {
  const current = $('dialect').value;
  const dialects = [...new Set(modelVoices().flatMap((v) => v.dialect))].sort();
  $('dialect').replaceChildren(new Option(t('allDialects'), ''), ...dialects.map((d) => new Option(d, d)));
  if (dialects.includes(current)) $('dialect').value = current;
  fillVoices();
}
/** Fills the voice list for the model and dialect: `select`, else the voice chosen before, else the model's default voice, when listed. */
function fillVoices(select) {
  const d = $('dialect').value;
  const before = select ?? $('voice').value;
  const list = modelVoices().filter((v) => !d || v.dialect.includes(d));
  $('voice').replaceChildren(...list.map((v) => new Option(`${v.name}${v.gender ? ` (${v.gender})` : ''}`, v.voice_id)));
  const fallback = models.find((m) => m.model_id === $('model').value)?.default_voice_id;
  const pick = [before, fallback].find((id) => id && list.some((v) => v.voice_id === id));
  if (pick) $('voice').value = pick;
}

// ---- speak: WebSocket → AudioWorklet, words highlighted from alignment ----
let audio = null;
let session = null;
async function audioGraph() {
  if (!audio) {
    const ctx = new AudioContext({ sampleRate: RATE });
    await ctx.audioWorklet.addModule('pcm-player.js');
    const node = new AudioWorkletNode(ctx, 'pcm-player', { outputChannelCount: [1] });
    node.connect(ctx.destination);
    audio = { ctx, node };
    node.port.onmessage = (e) => {
      stats.samplesPlayed = e.data.played;
      if (stats.firstPlayedAt === null && e.data.played > 0) stats.firstPlayedAt = performance.now();
      highlight(e.data.played);
    };
  }
  await audio.ctx.resume();
  audio.node.port.postMessage('reset');
  return audio;
}

let wordTimes = [];
function highlight(played) {
  const spans = $('words').children;
  let k = -1;
  while (k + 1 < wordTimes.length && wordTimes[k + 1] <= played) k++;
  for (let i = 0; i < spans.length; i++) {
    spans[i].classList.toggle('current', i === k);
    spans[i].classList.toggle('spoken', i < k);
  }
  stats.highlighted = Math.max(stats.highlighted, k + 1);
}

async function speak() {
  if (!client) return status(t('needKey'), true);
  const text = $('text').value.trim();
  const words = shownText(text).split(/\s+/u);
  $('words').replaceChildren(...words.flatMap((w) => { const s = document.createElement('span'); s.textContent = w; return [s, ' ']; }));
  wordTimes = [];
  stats.speakRuns++;
  Object.assign(stats, { audioMessages: 0, samplesReceived: 0, samplesPlayed: 0, firstPlayedAt: null, finalAt: null, highlighted: 0, spokenText: '', marks: [] });
  $('speak').disabled = true;
  $('stop').disabled = false;
  $('download').hidden = true;
  const chunks = [];
  try {
    const { node } = await audioGraph();
    status(t('speaking'));
    session = await client.connect({ voice_id: $('voice').value, model_id: $('model').value, output_format: 'pcm_24000', ...speechTextOptions() });
    // Sentence by sentence, as a text generator would: audio starts before the last is spoken
    // (an SSML document goes whole: its tags are not cut at a full stop).
    const sentences = $('ssml').checked ? [text] : text.match(/[^.!?؟،,]+[.!?؟،,]*\s*/gu) ?? [text];
    const sending = (async () => {
      for (const s of sentences) await session.send(s);
      await session.flush();
    })();
    for await (const e of session.untilFinal()) {
      if (e.marks) stats.marks.push(...e.marks.map((m) => m.name));
      if (e.alignment) {
        // Times within the message's own audio: a word starts at the message's offset plus its first character.
        const a = e.alignment;
        stats.spokenText += a.chars.join('');
        const base = a.charStartTimesMs[0] ?? 0;
        a.chars.forEach((c, i) => {
          if (c !== ' ' && (i === 0 || a.chars[i - 1] === ' ')) wordTimes.push(stats.samplesReceived + Math.round(((a.charStartTimesMs[i] - base) / 1000) * RATE));
        });
      }
      if (e.pcm.length) {
        chunks.push(e.pcm);
        const f = pcm16ToFloat32(e.pcm);
        stats.samplesReceived += f.length; // before the transfer, which empties f
        node.port.postMessage(f, [f.buffer]);
        stats.audioMessages++;
      }
    }
    stats.finalAt = performance.now();
    await sending;
    await session.close();
    const url = URL.createObjectURL(new Blob([pcmToWav(chunks, RATE)], { type: 'audio/wav' }));
    Object.assign($('download'), { href: url, hidden: false });
    status(t('spoken'));
  } catch (e) {
    fail(e);
  } finally {
    session = null;
    $('speak').disabled = false;
    $('stop').disabled = true;
  }
}

// ---- download in any output format: the server's list (its OpenAPI enum, from the one format table) ----
async function fillFormats() {
  let names = [...OUTPUT_FORMATS];
  try {
    const doc = await (await fetch('/api/v1/openapi.json')).json();
    names = doc.paths['/text-to-speech/{model_id}'].post.requestBody.content['application/json'].schema.properties.output_format.enum;
  } catch { /* the client's copy of the list */ }
  $('format').replaceChildren(...names.map((n) => new Option(n, n)));
  $('format').value = names.includes('mp3_44100_128') ? 'mp3_44100_128' : names[0];
  $('long-format').replaceChildren(...names.map((n) => new Option(n, n)));
  $('long-format').value = names.includes('mp3_44100_64') ? 'mp3_44100_64' : names[0];
}
const EXTENSIONS = { pcm: 'pcm', wav: 'wav', mp3: 'mp3', opus: 'opus', flac: 'flac', ulaw: 'ulaw', alaw: 'alaw' };

/** POST /text-to-speech in the chosen format (not streamed), offered as a file download. */
async function downloadFormat() {
  if (!client) return status(t('needKey'), true);
  const format = $('format').value;
  $('download-format').disabled = true;
  status(t('fetchingFormat'));
  try {
    const bytes = await client.textToSpeech($('model').value, { voice_id: $('voice').value, text: $('text').value.trim(), stability: 0.5, output_format: format, ...speechTextOptions() });
    const name = `sawt-${format}.${EXTENSIONS[format.split('_')[0]] ?? 'bin'}`;
    const link = $('format-link');
    if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
    Object.assign(link, { href: URL.createObjectURL(new Blob([bytes])), download: name, textContent: `${name} (${bytes.length} B)`, hidden: false });
    stats.lastDownload = { format, name, bytes: bytes.length };
    status(`${t('formatReady')} ${name}`);
    link.click();
  } catch (e) { fail(e); } finally { $('download-format').disabled = false; }
}

async function stopSpeaking() {
  audio?.node.port.postMessage('reset');
  if (session) { session.clear(); await session.close().catch(() => {}); }
}

// ---- clone: record or upload → preview → clone ----
let sampleBlob = null;
let previewPcm = null;
let recorder = null;
function setSample(blob) {
  sampleBlob = blob;
  Object.assign($('recorded'), { src: URL.createObjectURL(blob), hidden: false });
  $('preview').disabled = !client;
  $('clone').disabled = true;
}
async function record() {
  if (recorder) { recorder.stop(); return; }
  try {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    const parts = [];
    recorder = new MediaRecorder(stream);
    recorder.ondataavailable = (e) => parts.push(e.data);
    recorder.onstop = () => {
      stream.getTracks().forEach((tr) => tr.stop());
      recorder = null;
      $('record').textContent = t('record');
      setSample(new Blob(parts, { type: parts[0]?.type || 'audio/webm' }));
    };
    recorder.start();
    $('record').textContent = t('stopRecording');
    status(t('recording'));
  } catch (e) { fail(e); }
}
async function preview() {
  try {
    status(t('previewing'));
    $('preview').disabled = true;
    const chunks = [];
    for await (const c of client.previewVoice({ file: sampleBlob, text: $('text').value.trim().split(/[.؟!]/u)[0] + '.', similarity: 0.8, model_id: $('model').value })) chunks.push(c);
    previewPcm = { chunks, text: $('text').value.trim().split(/[.؟!]/u)[0] + '.' };
    Object.assign($('preview-audio'), { src: URL.createObjectURL(new Blob([pcmToWav(chunks)], { type: 'audio/wav' })), hidden: false });
    $('clone').disabled = false;
    status(t('previewReady'));
  } catch (e) { fail(e); } finally { $('preview').disabled = false; }
}
async function clone() {
  try {
    $('clone').disabled = true;
    const v = await client.cloneVoice({
      voice_file: pcmToWav(previewPcm.chunks), reference_audio_file: sampleBlob, text: previewPcm.text, stability: 0.5,
      name: $('clone-name').value.trim() || 'My voice', model: $('model').value,
    });
    voices = await client.voices();
    $('dialect').value = '';
    fillVoices(v.voice_id);
    $('clone-result').textContent = `${t('cloned')}: ${v.name} (${v.voice_id})`;
    $('clone-result').dataset.voiceId = v.voice_id;
    status(`${t('cloned')}: ${v.name}`);
  } catch (e) { fail(e); $('clone').disabled = false; }
}

// ---- denoise: before/after with waveforms ----
async function drawWave(canvas, blob) {
  const ctx = new OfflineAudioContext(1, 1, 24000);
  const buf = await ctx.decodeAudioData(await blob.arrayBuffer());
  const data = buf.getChannelData(0);
  const g = canvas.getContext('2d');
  const { width: w, height: h } = canvas;
  g.clearRect(0, 0, w, h);
  g.fillStyle = '#3056d3';
  const step = Math.max(1, Math.floor(data.length / w));
  for (let x = 0; x < w; x++) {
    let lo = 1, hi = -1;
    for (let i = x * step; i < Math.min(data.length, (x + 1) * step); i++) { if (data[i] < lo) lo = data[i]; if (data[i] > hi) hi = data[i]; }
    if (hi < lo) continue;
    g.fillRect(x, ((1 - hi) / 2) * h, 1, Math.max(1, ((hi - lo) / 2) * h));
  }
  canvas.dataset.drawn = String(data.length);
}
async function denoise(file) {
  if (!client) return status(t('needKey'), true);
  try {
    $('before').src = URL.createObjectURL(file);
    await drawWave($('wave-before'), file);
    status(t('denoising'));
    const wav = new Blob([await client.denoise(file, { fileName: file.name })], { type: 'audio/wav' });
    $('after').src = URL.createObjectURL(wav);
    await drawWave($('wave-after'), wav);
    status(t('denoised'));
  } catch (e) { fail(e); }
}

$('lang').onclick = () => { lang = lang === 'ar' ? 'en' : 'ar'; sessionStorage.setItem('sawt.lang', lang); applyLang(); };
$('save-key').onclick = () => useKey($('key').value.trim());
$('dialect').onchange = () => fillVoices();
$('model').onchange = () => fillDialects();
$('sample').onclick = () => {
  const v = voices.find((x) => x.voice_id === $('voice').value);
  if (v) { $('sample-audio').src = v.sample_url; $('sample-audio').play().catch(fail); }
};
$('speak').onclick = speak;
$('stop').onclick = stopSpeaking;
$('record').onclick = record;
$('sample-file').onchange = (e) => e.target.files[0] && setSample(e.target.files[0]);
$('preview').onclick = preview;
$('clone').onclick = clone;
$('noisy-file').onchange = (e) => e.target.files[0] && denoise(e.target.files[0]);
$('download-format').onclick = downloadFormat;

setupTabs($);
setupLongText({ $, t, stats, status, fail, client: () => client, voice: () => $('voice').value, model: () => $('model').value, options: speechTextOptions });
fillFormats();
applyLang();
const saved = sessionStorage.getItem('sawt.key');
if (saved) { $('key').value = saved; useKey(saved); }
