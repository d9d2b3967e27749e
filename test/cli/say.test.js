// `sawt say TEXT`: speech in-process (no server) or through a server's API, written
// to --out or to a redirected stdout as WAV.
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startServer, tempDir, parseWav, pcmStats, sawtBin, SENTENCE } from '../helpers/server.js';

/** Runs the CLI; stdout as bytes (WAV) and stderr as text. */
function cli(env, cwd, ...args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [sawtBin, ...args], { env: { ...process.env, ...env }, cwd, encoding: 'buffer', maxBuffer: 64 << 20 }, (e, stdout, stderr) =>
      resolve({ code: e ? e.code : 0, stdout, stderr: stderr.toString() }));
  });
}

const dir = tempDir(t);
const env = { SAWT_DATA_DIR: path.join(dir, 'data') };

function speech(t, wav, what) {
  const w = parseWav(wav);
  t.equal(w.riff, 'RIFF', `${what}: a WAV`);
  t.same(w.fmt, { format: 1, channels: 1, sampleRate: 24000, bitsPerSample: 16 }, `${what}: PCM16 mono 24 kHz`);
  const s = pcmStats(w.data);
  t.ok(s.seconds > 1 && s.seconds < 15, `${what}: ${s.seconds.toFixed(2)} s of audio`);
  t.ok(s.rms > 300, `${what}: not silence (rms ${Math.round(s.rms)})`);
  return w.data;
}

t.test('in-process to a file, and to a redirected stdout', async (t) => {
  const out = path.join(dir, 'hello.wav');
  const r = await cli(env, dir, 'say', SENTENCE, '--out', out);
  t.equal(r.code, 0, r.stderr);
  const a = speech(t, readFileSync(out), '--out');
  t.same(readdirSync(dir).filter((f) => f.includes('.partial-')), [], 'no partial file left');

  const piped = await cli(env, dir, 'say', SENTENCE);
  t.equal(piped.code, 0, piped.stderr);
  const b = speech(t, piped.stdout, 'stdout');
  t.equal(b.length, a.length, 'the same speech either way');

  const egyptian = await cli(env, dir, 'say', SENTENCE, '--dialect', 'egyptian', '--model', 'sawt-mini');
  t.equal(egyptian.code, 0, egyptian.stderr);
  t.notSame(speech(t, egyptian.stdout, '--dialect egyptian'), a, 'another dialect, another voice');

  const hts = await cli(env, dir, 'say', SENTENCE, '--model', 'sawt-hts', '--voice', 'fusha-ziad');
  t.equal(hts.code, 0, hts.stderr);
  speech(t, hts.stdout, 'sawt-hts');
});

t.test('bad choices are usage errors naming what exists', async (t) => {
  const voice = await cli(env, dir, 'say', SENTENCE, '--voice', 'nobody', '--out', path.join(dir, 'x.wav'));
  t.equal(voice.code, 2);
  t.match(voice.stderr, /^sawt: --voice: no voice 'nobody' for model sawt-mini \(voices: fusha-omar, /);
  const dialect = await cli(env, dir, 'say', SENTENCE, '--dialect', 'martian');
  t.equal(dialect.code, 2);
  t.match(dialect.stderr, /dialects: fusha, egyptian/);
  const model = await cli(env, dir, 'say', SENTENCE, '--model', 'nope');
  t.equal(model.code, 2);
  t.match(model.stderr, /--model: no model 'nope' \(models: sawt-mini, sawt-hts/);
  const empty = await cli(env, dir, 'say');
  t.equal(empty.code, 2);
  t.notOk(existsSync(path.join(dir, 'x.wav')), 'nothing written');
});

t.test('--server URL --key K speaks through the API (and is charged there)', async (t) => {
  const srv = await startServer(t);
  const { key, account } = await srv.client();
  const before = await srv.balance(account.id);
  const r = await cli(env, dir, 'say', SENTENCE, '--server', srv.base, '--key', key.key);
  t.equal(r.code, 0, r.stderr);
  speech(t, r.stdout, '--server');
  let after = before;
  for (let i = 0; i < 50 && after.balance === before.balance; i++) {
    await new Promise((res) => setTimeout(res, 100));
    after = await srv.balance(account.id);
  }
  t.ok(after.balance < before.balance, 'the account paid for it');

  const bad = await cli(env, dir, 'say', SENTENCE, '--server', `${srv.base}/api/v1`, '--key', 'sawt_wrong');
  t.equal(bad.code, 1);
  t.match(bad.stderr, /^sawt: the server answered 401 \(40101\): /);
  const noKey = await cli(env, dir, 'say', SENTENCE, '--server', srv.base);
  t.equal(noKey.code, 2);
  t.match(noKey.stderr, /--server needs --key/);
});

// On a terminal, `sawt say` plays the speech. A machine with no sound card and no sound server
// (a server, a container, this CI) used to get ALSA's dozen lines, nothing played and status 0.
const hasSoundCard = existsSync('/dev/snd') || Boolean(process.env.PULSE_SERVER);
const hasScript = !spawnSync('script', ['--version'], { stdio: 'ignore' }).error;
t.test('on a terminal without an audio device: one line and a failure status', { skip: hasSoundCard ? 'this machine has a sound device' : !hasScript && 'script(1), for a terminal, is not installed' }, async (t) => {
  const quote = (s) => `'${s.replaceAll("'", `'\\''`)}'`;
  const cmd = [process.execPath, sawtBin, 'say', SENTENCE].map(quote).join(' ');
  // script(1) runs the command on a pseudo-terminal (stdout is a TTY) and passes on its status (-e).
  const r = await new Promise((resolve) => {
    execFile('script', ['-qec', cmd, '/dev/null'], { env: { ...process.env, ...env, XDG_RUNTIME_DIR: '' }, cwd: dir }, (e, stdout) =>
      resolve({ code: e ? e.code : 0, out: stdout.toString() }));
  });
  t.not(r.code, 0, 'a failure status');
  t.match(r.out, /sawt: no audio device: use --out FILE/);
  t.notMatch(r.out, /ALSA lib/, 'no ALSA noise');
  t.ok(r.out.trim().split('\n').length <= 2, `one line: ${JSON.stringify(r.out)}`);
});
