#!/usr/bin/env node
// Fuzzes the espeak input path: random text (Arabic, Latin, digits, punctuation, [[…]] passages
// valid and invalid, SSML-like markup, very long words) through the engine's real synthesizer (text
// front end, phoneme-passage validator, native espeak-ng synthesis) with a random sawt-mini voice
// (every dialect), in a CHILD process. A child that dies by a signal (or exits) with an input in
// flight is a crash: the input is written to OUT/crash-N.json and printed; a child that does not
// answer within --input-timeout is a hang (same). The child is restarted and the run goes on.
//
//   npm run fuzz -- --minutes 30 [--seed 1] [--out test-artifacts/fuzz] [--input FILE.json]...
//   (--seconds S instead of --minutes; --input: a JSON string or array of strings run first;
//   --skip N: the first N inputs of the seed are made but not run (replays a run's tail);
//   --max-inputs N: stop after N inputs; --replay CRASH.json: that one input again, with its voice, speed and stability;
//   --direct: each text straight to native espeak with phoneme input, no front end and no validator:
//   shows what they stop, e.g. the crasher of issue 28)
// Last line on stdout: {"inputs":…,"minutes":…,"crashes":…,"hangs":…,"spoken":…,"refused":…,"seed":…}
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function args(argv) {
  const o = { minutes: 5, seed: Date.now() % 2 ** 31, out: path.join(repoRoot, 'test-artifacts/fuzz'), inputs: [], inputTimeoutS: 60 };
  for (let i = 0; i < argv.length; i++) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (k === '--minutes') (o.minutes = Number(v), i++);
    else if (k === '--seconds') (o.minutes = Number(v) / 60, i++);
    else if (k === '--seed') (o.seed = Number(v), i++);
    else if (k === '--out') (o.out = path.resolve(v), i++);
    else if (k === '--input') (o.inputs.push(...[JSON.parse(readFileSync(v, 'utf8'))].flat()), i++);
    else if (k === '--input-timeout') (o.inputTimeoutS = Number(v), i++);
    else if (k === '--child') o.child = true;
    else if (k === '--direct') o.direct = true;
    else if (k === '--skip') (o.skip = Number(v), i++);
    else if (k === '--max-inputs') (o.maxInputs = Number(v), i++);
    else if (k === '--replay') (o.replay = JSON.parse(readFileSync(v, 'utf8')), i++);
    else throw new Error(`unknown option ${k}`);
  }
  return o;
}

// ---- random inputs ----------------------------------------------------------------------------

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const ARABIC = [...'ءآأؤإئابةتثجحخدذرزسشصضطظعغفقكلمنهوىي'];
const MARKS = [...'\u064b\u064c\u064d\u064e\u064f\u0650\u0651\u0652\u0670'];
const LATIN = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéèüöçñ'];
const PUNCT = [...'.,;:!?؟،؛…-—"\'«»()[]{}<>/\\|@#$%^&*_+=~`'];
const DIGITS = [...'0123456789٠١٢٣٤٥٦٧٨٩'];
const SYMBOLS = ['a', 'i', 'u', 'a.', 'i.', 'u.', 'e', 'o', '@', ':', "'", ',', '%', 'b', 't', 'T', 'dZ', 'H', 'X', 'd', 'D', 'r', 'R', 'z', 's', 'S', 's[', 'dH', 't[', 'Z', 'A', 'Q', 'gH', 'f', 'q', 'k', 'l', 'm', 'n', 'h', 'w', 'j', '?', 'p', 'v', 'g', 'tS', 'N', 'x', '_', '_:', '*', 'l^', 'n^'];
const BAD = ['_^_', '_^_en', '||', '#a', '1', '$', 'ß', 'ب', '[', ']', '[[', '\u0002', '\u0000', '\uffff', '😀', '\u200b', '\ue000', '［', '<', '&amp;'];
const ODD = ['\u0002', '\u0000', '\u001b', '\u200f', '\u200b', '\ufeff', '\ud83d\ude00', '\ue000', '\ue001', '\ue010', '\ue011', 'ـ', '﷽', 'ﻻ', '［［', '］］', '\u0640'.repeat(20), '\n', '\t', '\r\n'];

function gen(r) {
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const int = (lo, hi) => lo + Math.floor(r() * (hi - lo + 1));
  const many = (n, f, sep = '') => Array.from({ length: n }, f).join(sep);
  const arabicWord = (n = int(1, 9)) => many(n, () => pick(ARABIC) + (r() < 0.5 ? pick(MARKS) : ''));
  const latinWord = (n = int(1, 12)) => many(n, () => pick(LATIN));
  const phonemeWord = (n = int(1, 12)) => many(n, () => pick(SYMBOLS) + (r() < 0.1 ? '|' : ''));
  const passage = () => {
    const k = r();
    if (k < 0.45) return `[[${many(int(1, 6), () => phonemeWord(), ' ')}]]`; // valid
    if (k < 0.6) return `[[${many(int(1, 3), () => phonemeWord(int(55, 70)), ' ')}]]`; // around the per-word cap
    if (k < 0.7) return `[[${pick(SYMBOLS).repeat(int(50, 400))}]]`; // one long run (the finding's shape)
    if (k < 0.8) return `[[${many(int(1, 4), () => phonemeWord() + pick(BAD) + phonemeWord(), ' ')}]]`; // a bad symbol
    if (k < 0.9) return `[[${many(int(10, 80), () => phonemeWord(int(1, 4)), ' ')}]]`; // many words
    return pick(['[[', ']]', '[[ ]]', '[[]]', '[[[[a]]]]', '[[a]b]]', '[[a [[b]] c]]', `[[${phonemeWord()}`, `${phonemeWord()}]]`]);
  };
  const ssml = () => pick([
    `<speak>${arabicWord()} <phoneme alphabet="x-sawt" ph="${phonemeWord()}">${arabicWord()}</phoneme></speak>`,
    `<break time="${int(0, 99999)}ms"/>`, `<prosody rate="${int(-100, 500)}%">${arabicWord()}</prosody>`, `<say-as interpret-as="characters">${latinWord()}</say-as>`,
    '<speak', '</speak>', '<![CDATA[', ']]>', '&lt;&#x5b;&#x5b;', '<?xml version="1.0"?>', `<audio src="/etc/passwd"/>`,
  ]);
  const token = () => {
    const k = r();
    if (k < 0.35) return arabicWord();
    if (k < 0.45) return latinWord();
    if (k < 0.52) return many(int(1, 12), () => pick(DIGITS));
    if (k < 0.6) return many(int(1, 4), () => pick(PUNCT));
    if (k < 0.75) return passage();
    if (k < 0.8) return ssml();
    if (k < 0.86) return pick([arabicWord(int(40, 400)), latinWord(int(40, 300)), many(int(40, 300), () => pick(DIGITS)), arabicWord(int(20, 60)) + latinWord(int(20, 60))]); // very long words
    if (k < 0.9) return pick(ODD);
    if (k < 0.93) return String.fromCodePoint(int(0x20, 0x2fff));
    return many(int(1, 5), () => pick(ARABIC));
  };
  // Mostly ≥ 3 words (the API's minimum), some texts long enough for several segments.
  return many(r() < 0.1 ? int(40, 200) : int(3, 25), token, ' ');
}

// ---- child: the engine's synthesizer, one input at a time --------------------------------------

async function child() {
  const { createSawt, tokens } = await import('@sawt/core');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sawt-fuzz-'));
  const noop = () => {};
  const logger = { info: noop, debug: noop, warn: noop, error: noop, child: () => logger };
  const configPath = path.join(repoRoot, 'config/default.json');
  const app = await createSawt({ runtime: { host: '127.0.0.1', port: 0, dataDir, modelsDir: path.join(dataDir, 'models'), configPath, configDir: path.dirname(configPath) }, logger });
  await app.start();
  const synthesizer = app.get(tokens.synthesizer);
  const voices = JSON.parse(readFileSync(configPath, 'utf8')).plugins.find((p) => p.resolve.endsWith('plugin-engine')).options.voices.filter((v) => v.espeak).map((v) => v.voice_id);
  process.send({ ready: true, voices });
  process.on('message', async ({ i, text, voice, speed, stability }) => {
    try {
      if (process.argv.includes('--direct')) {
        const { synthesizeStream } = await import('@sawt/native');
        let samples = 0;
        for await (const { info } of synthesizeStream({ segments: [text], voice: 'ar', rate: 175, pitch: 50, range: 50, phonemeInput: true })) samples += info.samples;
        return process.send({ i, samples });
      }
      const stream = await synthesizer.synthesize({ modelId: 'sawt-mini', voiceId: voice, accountId: '', text, speed, stability, sampleRate: 24000, requestId: `fuzz-${i}` });
      let samples = 0;
      for await (const { info } of stream) samples += info.samples;
      process.send({ i, samples });
    } catch (e) {
      process.send({ i, refused: e.status === 400, message: String(e.message).slice(0, 200) });
      if (process.env.FUZZ_VERBOSE) console.error(`refused ${i}: ${e.message}`);
    }
  });
  process.on('disconnect', () => {
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
}

// ---- parent ---------------------------------------------------------------------------------------

async function parent(o) {
  mkdirSync(o.out, { recursive: true });
  const r = rng(o.seed);
  const started = Date.now();
  let deadline = o.replay ? started : started + o.minutes * 60_000;
  const stats = { inputs: 0, minutes: 0, crashes: 0, hangs: 0, spoken: 0, refused: 0, errors: 0, seed: o.seed };
  const fixed = o.replay ? [o.replay.text] : [...o.inputs];
  const found = [];
  while (Date.now() < deadline || fixed.length) {
    const proc = fork(fileURLToPath(import.meta.url), ['--child', ...(o.direct ? ['--direct'] : [])], { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    let pending = null;
    let voices = [];
    const died = new Promise((resolve) => proc.once('exit', (code, signal) => resolve({ code, signal })));
    const next = () => new Promise((resolve) => {
      pending = resolve;
    });
    proc.on('message', (m) => pending?.(m));
    const first = await Promise.race([next(), died]);
    if (!first.ready) throw new Error(`the fuzz child did not start (${JSON.stringify(first)})`);
    voices = first.voices;
    for (;;) {
      if (Date.now() >= deadline && fixed.length === 0) break;
      const text = fixed.length ? fixed.shift() : gen(r);
      const input = { i: stats.inputs, text, voice: voices[Math.floor(r() * voices.length)], speed: 0.5 + r() * 1.5, stability: r() };
      if (o.replay) Object.assign(input, o.replay, { i: stats.inputs });
      stats.inputs++;
      if (stats.inputs <= (o.skip ?? 0)) continue;
      if (o.maxInputs !== undefined && stats.inputs > o.maxInputs) {
        stats.inputs--;
        fixed.length = 0;
        deadline = 0;
        break;
      }
      proc.send(input);
      let timer;
      const hang = new Promise((resolve) => (timer = setTimeout(() => resolve({ hang: true }), o.inputTimeoutS * 1000)));
      const res = await Promise.race([next(), died, hang]);
      clearTimeout(timer);
      if ('samples' in res) stats.spoken++;
      else if ('refused' in res) res.refused ? stats.refused++ : stats.errors++;
      else {
        const kind = res.hang ? 'hang' : 'crash';
        stats[kind === 'hang' ? 'hangs' : 'crashes']++;
        const file = path.join(o.out, `${kind}-${o.seed}-${input.i}.json`);
        writeFileSync(file, JSON.stringify({ ...input, signal: res.signal ?? null, code: res.code ?? null }, null, 2));
        found.push(file);
        console.log(`${kind.toUpperCase()}: ${res.signal ?? res.code ?? 'no answer'} on input ${input.i} (voice ${input.voice}), written to ${file}:\n${JSON.stringify(text)}`);
        if (res.hang) proc.kill('SIGKILL');
        await died;
        break;
      }
      if (stats.inputs % 500 === 0) console.error(`fuzz: ${stats.inputs} inputs, ${((Date.now() - started) / 60000).toFixed(1)} min, ${stats.crashes} crashes`);
    }
    if (proc.connected) proc.disconnect();
    await died;
  }
  stats.minutes = Math.round((Date.now() - started) / 600) / 100;
  console.log(JSON.stringify({ ...stats, found }));
  process.exitCode = stats.crashes + stats.hangs > 0 ? 1 : 0;
}

const o = args(process.argv.slice(2));
if (o.child) await child();
else await parent(o);
