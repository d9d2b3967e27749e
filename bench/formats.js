// Output formats: first byte of streamed MP3 and Opus against streamed PCM for the same request
// (p50/p95 over N requests each, interleaved), and CPU per audio second of each encoder (the
// addon's AudioEncoder, in 200 ms chunks as the server feeds it) beside ffmpeg encoding the same PCM.
// node bench/formats.js [requests=20]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createSawt, OUTPUT_FORMAT_TABLE, tokens, toMicro } from '@sawt/core';
import { AudioEncoder } from '@sawt/native';

const N = Number(process.argv[2] ?? 20);
const dataDir = mkdtempSync(path.join(tmpdir(), 'sawt-bench-formats-'));
const quiet = { info() {}, debug() {}, warn() {}, error() {}, child() { return quiet; } };
const app = await createSawt({ runtime: { port: 0, host: '127.0.0.1', dataDir, modelsDir: path.join(dataDir, 'models') }, logger: quiet });
await app.start();
const account = await app.get(tokens.accounts).create({ name: 'bench', plan: 'enterprise' });
await app.get(tokens.wallet).topUp(account.id, toMicro('1000000'));
const key = await app.get(tokens.apiKeys).create({ accountId: account.id });
const { port } = app.get(tokens.httpServer).server.address();
const url = `http://127.0.0.1:${port}/api/v1/text-to-speech/sawt-mini`;
const TEXT = 'مرحبا بكم في خدمة صوت للنطق العربي. نتمنى لكم يوما سعيدا.';

async function firstByte(format) {
  const t0 = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'x-api-key': key.key, 'content-type': 'application/json' }, body: JSON.stringify({ voice_id: 'fusha-omar', stability: 0.5, text: TEXT, streaming: true, output_format: format }) });
  const reader = res.body.getReader();
  await reader.read();
  const ms = performance.now() - t0;
  while (!(await reader.read()).done);
  return ms;
}
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

const fb = { pcm_24000: [], mp3_44100_64: [], opus_48000_64: [] };
for (const f of Object.keys(fb)) await firstByte(f); // warm-up
for (let i = 0; i < N; i++) for (const f of Object.keys(fb)) fb[f].push(await firstByte(f));
console.log(`first byte of a streamed response, sawt-mini, ${N} requests each (ms):`);
for (const [f, xs] of Object.entries(fb)) console.log(`  ${f.padEnd(14)} p50 ${pct(xs, 50).toFixed(1)}  p95 ${pct(xs, 95).toFixed(1)}  (p50 vs pcm ${(pct(xs, 50) - pct(fb.pcm_24000, 50)).toFixed(1)})`);

// 60 s of speech-like PCM at 24 kHz: the WAV of a request, repeated.
const wav = Buffer.from(await (await fetch(url, { method: 'POST', headers: { 'x-api-key': key.key, 'content-type': 'application/json' }, body: JSON.stringify({ voice_id: 'fusha-omar', stability: 0.5, text: TEXT, streaming: false }) })).arrayBuffer());
const one = wav.subarray(44);
const pcm = Buffer.concat(Array.from({ length: Math.ceil((60 * 48000) / one.length) }, () => one)).subarray(0, 60 * 48000);
const seconds = pcm.length / 48000;
await app.stop?.();
const dir = mkdtempSync(path.join(tmpdir(), 'sawt-bench-ffmpeg-'));
const raw = path.join(dir, 'in.pcm');
writeFileSync(raw, pcm);
const cpuMs = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const FF = { mp3: (f) => ['-c:a', 'libmp3lame', '-b:a', `${f.bitrate / 1000}k`, '-f', 'mp3'], opus: (f) => ['-c:a', 'libopus', '-b:a', `${f.bitrate / 1000}k`, '-f', 'ogg'], flac: () => ['-c:a', 'flac', '-f', 'flac'], ulaw: () => ['-c:a', 'pcm_mulaw', '-f', 'mulaw'], alaw: () => ['-c:a', 'pcm_alaw', '-f', 'alaw'], pcm: () => ['-f', 's16le'], wav: () => ['-f', 'wav'] };
console.log(`\nCPU per audio second (ms), ${seconds} s of 24 kHz speech, 200 ms chunks; ffmpeg 5.1, one run of its own (CPU by bash's time):`);
const chunk = 24000 * 2 / 5;
for (const f of OUTPUT_FORMAT_TABLE.filter((x) => ['pcm_44100', 'wav_48000', 'mp3_22050_32', 'mp3_44100_64', 'mp3_44100_128', 'mp3_44100_192', 'opus_48000_32', 'opus_48000_64', 'opus_48000_128', 'flac_24000', 'flac_44100', 'ulaw_8000', 'alaw_8000'].includes(x.name))) {
  const enc = new AudioEncoder(f.codec === 'wav' ? 'pcm' : f.codec, 24000, f.sampleRate, f.bitrate ?? 0);
  // The encoder runs on libuv's pool: its CPU is the process's CPU while the event loop waits.
  const c0 = cpuMs();
  let bytes = 0;
  for (let at = 0; at < pcm.length; at += chunk) bytes += (await enc.push(pcm.subarray(at, at + chunk))).length;
  bytes += (await enc.end()).length;
  const ours = (cpuMs() - c0) / seconds;
  // ffmpeg's user + system CPU by bash's `time`, the same PCM in one run (its start included).
  const ff = execFileSync('bash', ['-c', `TIMEFORMAT='%U %S'; { time ffmpeg -v error -threads 1 -f s16le -ar 24000 -ac 1 -i ${raw} -ar ${f.sampleRate} ${FF[f.codec](f).join(' ')} -y ${path.join(dir, 'out')} ; } 2>&1`], { encoding: 'utf8' }).trim().split(/\s+/).map(Number);
  const ffMs = ((ff[0] + ff[1]) * 1000) / seconds;
  console.log(`  ${f.name.padEnd(15)} sawt ${ours.toFixed(2).padStart(6)}   ffmpeg ${ffMs.toFixed(2).padStart(6)} (incl. process start)   ${(bytes / seconds / 125).toFixed(1)} kbit/s`);
}
rmSync(dir, { recursive: true, force: true });
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
