// `sawt say --file book.txt --out book.EXT` as a user types it: a text file spoken in-process,
// part by part, through one encoder into one file whose format is its extension's (MP3, Ogg
// Opus, FLAC, WAV), each decoded by ffprobe/ffmpeg; a progress line on a terminal (percent,
// characters/s, ETA), nothing but a JSON summary with --json.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { outputFormat } from '@sawt/core';
import { LONG_TEXT, parseWav, repoRoot, sawtBin, tempDir } from '../helpers/server.js';
import { sawtCli } from '../helpers/spawned-server.js';
import { decode } from '../formats/decode.js';

const dir = tempDir(t);
const TEXT = 'كان يا ما كان في قديم الزمان رجل يحب القراءة كثيرا. كان يقرأ كل يوم كتابا جديدا في مكتبة المدينة.';
const file = path.join(dir, 'story.txt');
writeFileSync(file, `${TEXT}\n\n${LONG_TEXT}\n`);
const local = { SAWT_DATA_DIR: path.join(dir, 'say-data') };

const CASES = [
  { ext: 'mp3', format: 'mp3_44100_128', codec: 'mp3', rate: 44100 },
  { ext: 'ogg', format: 'opus_48000_64', codec: 'opus', rate: 48000 },
  { ext: 'flac', format: 'flac_24000', codec: 'flac', rate: 24000 },
  { ext: 'wav', format: 'wav_24000', codec: 'pcm_s16le', rate: 24000 },
];

for (const c of CASES) {
  t.test(`--out story.${c.ext}: ${c.format}, decoded`, async (t) => {
    const out = path.join(dir, `story.${c.ext}`);
    const r = await sawtCli(local, 'say', '--file', file, '--out', out, '--json');
    t.equal(r.code, 0, r.stderr);
    t.equal(r.stderr, '', 'quiet with --json');
    const summary = JSON.parse(r.stdout);
    t.match(summary, { out, format: c.format, parts: 2, characters: TEXT.length + LONG_TEXT.length });
    t.equal(summary.bytes, statSync(out).size, 'the summary gives the file\'s size');
    const audio = await decode(readFileSync(out), outputFormat(c.format));
    t.equal(audio.codec, c.codec);
    t.equal(audio.sampleRate, c.rate);
    t.equal(audio.channels, 1);
    t.ok(audio.seconds > 8, `both paragraphs spoken (${audio.seconds.toFixed(2)} s)`);
    t.ok(Math.abs(audio.seconds - summary.audio_seconds) < 0.1, `${audio.seconds.toFixed(2)} s decoded, the summary says ${summary.audio_seconds} s`);
    t.ok(audio.rms > 300, `not silence (rms ${Math.round(audio.rms)})`);
    if (c.ext === 'wav') {
      const bytes = readFileSync(out);
      const wav = parseWav(bytes);
      t.ok(wav.data.length === bytes.length - 44 && wav.riffSize === bytes.length - 8, 'the WAV header states the true sizes');
      t.equal(wav.data.length / 2, audio.samples, 'every sample in the data chunk');
    }
    if (c.ext === 'flac') {
      const probe = JSON.parse((await promisify(execFile)('ffprobe', ['-v', 'error', '-show_entries', 'stream=duration_ts', '-of', 'json', out])).stdout);
      t.equal(Number(probe.streams[0].duration_ts), audio.samples, 'STREAMINFO gives the total samples (players show the duration)');
    }
    t.same(readdirSync(dir).filter((f) => f.includes('.partial-')), [], 'no partial file left');
  });
}

t.test('an extension that names no format is a usage error, before any speech', async (t) => {
  const r = await sawtCli(local, 'say', '--file', file, '--out', path.join(dir, 'story.aac'));
  t.equal(r.code, 2, 'a usage error');
  t.match(r.stderr, /cannot tell the audio format of ".*story\.aac": end it in \.mp3, \.ogg, \.opus, \.flac, \.wav/);
  t.notOk(existsSync(path.join(dir, 'story.aac')));
  const none = await sawtCli(local, 'say', '--file', file);
  t.equal(none.code, 2);
  t.match(none.stderr, /say --file needs --out FILE \(\.mp3/);
});

t.test('on a terminal: a progress line with percent, characters/s and ETA', async (t) => {
  // script(1) gives the command a pseudo-terminal.
  if (spawnSync('script', ['--version']).error) return t.skip('script(1) is not installed: no pseudo-terminal for the progress line');
  const out = path.join(dir, 'tty.mp3');
  const tty = spawnSync('script', ['-qec', `'${process.execPath}' '${sawtBin}' say --file '${file}' --out '${out}'`, '/dev/null'], { cwd: repoRoot, env: { ...process.env, ...local }, encoding: 'utf8' });
  t.equal(tty.status, 0, tty.stdout);
  const total = TEXT.length + LONG_TEXT.length;
  t.match(tty.stdout, new RegExp(`\\rsay \\[-{24}\\]   0% 0/${total} characters, 0 characters/s, ETA …`), 'starts at 0 %');
  t.match(tty.stdout, new RegExp(`\\rsay \\[#{24}\\] 100% ${total}/${total} characters, \\d+ characters/s, ETA 0 s`), 'ends at 100 % with characters/s and ETA');
  t.ok(statSync(out).size > 1000, 'and the file');
});
