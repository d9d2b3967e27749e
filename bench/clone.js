// Voice cloning benchmark (npm run bench:clone). For each of the two speakers of
// ../shared/testdata/arabic-speech-commands (*_00000003_01.wav, *_00000010_01.wav;
// all clips of a speaker concatenated into one reference): preview at similarity
// 0, 0.5 and 1, clone from that preview, synthesize a fixed Arabic text with the
// clone over HTTP, and compare (native analysis) with the reference:
//  - median F0 of the clone vs the reference, in semitones (target |Δ| ≤ 1);
//  - long-term spectrum distance (third-octave bands 100–6300 Hz, dB RMS, levels
//    removed) and mean-MFCC distance (c1..c12, Euclidean), clone→reference vs
//    base voice→reference (target: ≥ 30% smaller);
//  - whether each clone is closer to its own speaker than to the other one;
//  - DNSMOS P.835 OVRL of the clone's and the base voice's speech (when the model is in ../shared).
// BENCH_CLONE_MODEL (default sawt-mini) picks the model of preview, clone and speech:
// sawt-hts (its voice is bundled) makes the clones from the HTS
// voices, moved at the parameter level.
// Results are printed and written to bench/results/clone-<date>.json.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createSawt, tokens, toMicro } from '@sawt/core';
import { analyzeVoice } from '@sawt/plugin-engine';
import { createDnsmos } from './dnsmos.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const dataDirShared = path.resolve(here, '../../shared/testdata/arabic-speech-commands');
if (!existsSync(dataDirShared)) {
  console.error(`bench:clone needs ${dataDirShared}`);
  process.exit(1);
}
const TEXT = 'السلام عليكم ورحمة الله وبركاته. يسعدنا أن نقدم لكم خدمة صوت لتحويل النص العربي إلى كلام واضح.';
const SPEAKERS = ['00000003', '00000010'];
const SIMILARITIES = [0, 0.5, 1];
const MAX_BAND_HZ = 6300;
const MODEL = process.env.BENCH_CLONE_MODEL ?? 'sawt-mini';

const work = mkdtempSync(path.join(tmpdir(), 'sawt-bench-clone-'));
const quiet = { info() {}, debug() {}, warn() {}, error: console.error, child() { return quiet; } };
const app = await createSawt({ runtime: { port: 0, host: '127.0.0.1', dataDir: work, modelsDir: process.env.SAWT_MODELS_DIR ?? path.join(work, 'models') }, logger: quiet });
await app.start();
const account = await app.get(tokens.accounts).create({ name: 'bench', plan: 'enterprise' });
await app.get(tokens.wallet).topUp(account.id, toMicro('1000000'));
const key = (await app.get(tokens.apiKeys).create({ accountId: account.id })).key;
const api = `http://127.0.0.1:${app.get(tokens.httpServer).server.address().port}/api/v1`;

function referenceWav(speaker) {
  const files = readdirSync(dataDirShared).filter((f) => f.endsWith(`_${speaker}_01.wav`)).sort();
  const list = path.join(work, `${speaker}.txt`);
  writeFileSync(list, files.map((f) => `file '${path.join(dataDirShared, f)}'`).join('\n'));
  const out = path.join(work, `${speaker}.wav`);
  execFileSync('ffmpeg', ['-v', 'error', '-y', '-f', 'concat', '-safe', '0', '-i', list, '-ac', '1', '-ar', '24000', out]);
  return { files: files.length, wav: execFileSync('cat', [out], { maxBuffer: 1 << 28 }) };
}
const pcmOfWav = (wav) => wav.subarray(44);

async function form(p, fields, files) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, String(v));
  for (const [k, v] of Object.entries(files)) fd.append(k, new Blob([v]), k);
  const r = await fetch(`${api}${p}`, { method: 'POST', headers: { 'x-api-key': key }, body: fd });
  const b = Buffer.from(await r.arrayBuffer());
  if (r.status !== 200) throw new Error(`${p}: ${r.status} ${b.toString()}`);
  return b;
}
async function tts(voiceId, model = MODEL) {
  const r = await fetch(`${api}/text-to-speech/${model}`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ voice_id: voiceId, text: TEXT, stability: 0.5, streaming: true }) });
  const b = Buffer.from(await r.arrayBuffer());
  if (r.status !== 200) throw new Error(`tts ${voiceId}: ${r.status} ${b.toString()}`);
  return b;
}

function bandDistance(a, b) {
  const idx = a.bandCenters.map((c, i) => [c, i]).filter(([c]) => c <= MAX_BAND_HZ).map(([, i]) => i);
  const d = idx.map((i) => a.bandsDb[i] - b.bandsDb[i]);
  const m = d.reduce((s, x) => s + x, 0) / d.length;
  return Math.sqrt(d.reduce((s, x) => s + (x - m) ** 2, 0) / d.length);
}
const mfccDistance = (a, b) => Math.sqrt(a.mfccMean.reduce((s, x, i) => s + (x - b.mfccMean[i]) ** 2, 0));
const semitones = (a, b) => 12 * Math.log2(a / b);
const r2 = (x) => Math.round(x * 100) / 100;

const dnsmos = await createDnsmos(24000);
const refs = {};
for (const s of SPEAKERS) {
  const r = referenceWav(s);
  refs[s] = { ...r, analysis: await analyzeVoice(pcmOfWav(r.wav), 24000) };
}
const results = [];
for (const s of SPEAKERS) {
  const ref = refs[s].analysis;
  const other = refs[SPEAKERS.find((x) => x !== s)].analysis;
  for (const similarity of SIMILARITIES) {
    const preview = await form('/voices/preview', { text: TEXT, similarity, model_id: MODEL }, { file: refs[s].wav });
    const record = JSON.parse((await form('/voices/clone', { name: `bench ${s} ${similarity}`, text: TEXT, stability: 0.5, model: MODEL }, { voice_file: preview, reference_audio_file: refs[s].wav })).toString());
    const profile = JSON.parse(execFileSync('cat', [path.join(work, 'blobs', 'voices', record.voice_id, 'profile.json')]).toString());
    const clonePcm = await tts(record.voice_id), basePcm = await tts(profile.base.voiceId, profile.base.modelId ?? MODEL);
    const clone = await analyzeVoice(clonePcm, 24000);
    const base = await analyzeVoice(basePcm, 24000);
    const row = {
      model: MODEL, speaker: s, referenceClips: refs[s].files, similarity, baseVoice: profile.base.voiceId, warp: r2(profile.mapping.warp),
      f0: { reference: r2(ref.f0Median), base: r2(base.f0Median), clone: r2(clone.f0Median), cloneMinusRefSemitones: r2(semitones(clone.f0Median, ref.f0Median)) },
      ltas: { baseToRef: r2(bandDistance(base, ref)), cloneToRef: r2(bandDistance(clone, ref)), cloneToOther: r2(bandDistance(clone, other)) },
      mfcc: { baseToRef: r2(mfccDistance(base, ref)), cloneToRef: r2(mfccDistance(clone, ref)), cloneToOther: r2(mfccDistance(clone, other)) },
    };
    if (dnsmos) row.dnsmosOvrl = { base: r2((await dnsmos(basePcm)).ovrl), clone: r2((await dnsmos(clonePcm)).ovrl) };
    row.ltas.reduction = r2(1 - row.ltas.cloneToRef / row.ltas.baseToRef);
    row.mfcc.reduction = r2(1 - row.mfcc.cloneToRef / row.mfcc.baseToRef);
    row.targets = {
      f0Within1Semitone: Math.abs(row.f0.cloneMinusRefSemitones) <= 1,
      ltas30pct: row.ltas.reduction >= 0.3,
      mfcc30pct: row.mfcc.reduction >= 0.3,
      closerToOwnSpeaker: row.ltas.cloneToRef + row.mfcc.cloneToRef / 5 < row.ltas.cloneToOther + row.mfcc.cloneToOther / 5,
    };
    results.push(row);
    console.log(`speaker ${s} sim ${similarity}: base ${row.baseVoice} warp ${row.warp} | F0 ref ${row.f0.reference} base ${row.f0.base} clone ${row.f0.clone} (${row.f0.cloneMinusRefSemitones} st) | LTAS dB base→ref ${row.ltas.baseToRef} clone→ref ${row.ltas.cloneToRef} (${Math.round(row.ltas.reduction * 100)}%) clone→other ${row.ltas.cloneToOther} | MFCC base→ref ${row.mfcc.baseToRef} clone→ref ${row.mfcc.cloneToRef} (${Math.round(row.mfcc.reduction * 100)}%) clone→other ${row.mfcc.cloneToOther}${row.dnsmosOvrl ? ` | DNSMOS OVRL base ${row.dnsmosOvrl.base} clone ${row.dnsmosOvrl.clone}` : ''} | ${JSON.stringify(row.targets)}`);
  }
}
const dir = path.join(here, 'results');
mkdirSync(dir, { recursive: true });
const date = new Date().toISOString();
const file = path.join(dir, `clone-${date.replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ date, text: TEXT, results }, null, 2));
console.log(`written ${path.relative(process.cwd(), file)}`);
await app.stop();
rmSync(work, { recursive: true, force: true });
