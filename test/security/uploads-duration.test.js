// Issue 28, finding 5: denoise must not trust the duration a header states. An ADTS (AAC)
// stream of 20 s at a high bit rate followed by a long stretch at 8 kbit/s is probed far
// shorter than it is; the server bills what it decodes, and refuses past 15 minutes
// without denoising (or charging) anything.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { parseWav, startServer, tempDir } from '../helpers/server.js';
import { noise, postMultipart, uploadConfig } from './uploads-helpers.js';

const work = tempDir(t, 'sawt-liar-');
// Default limits (15 minutes, 0.01 per started minute); rnnoise for speed.
const srv = await startServer(t, { config: uploadConfig() });

/** 20 s of noise at 320 kbit/s, then `seconds` at 8 kbit/s, as one ADTS stream. */
function liar(name, seconds) {
  const loud = readFileSync(noise(path.join(work, `${name}-a.aac`), 20, { args: ['-c:a', 'aac', '-b:a', '320k', '-f', 'adts'] }));
  const quiet = readFileSync(noise(path.join(work, `${name}-b.aac`), seconds, { args: ['-c:a', 'aac', '-b:a', '8k', '-f', 'adts'] }));
  return Buffer.concat([loud, quiet]);
}
const headerSeconds = (bytes, name) => {
  const file = path.join(work, `${name}.probe.aac`);
  execFileSync('sh', ['-c', 'cat > "$0"', file], { input: bytes });
  return Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', file]).toString());
};
const settled = async (accountId) => {
  for (let i = 0; i < 500; i++) {
    const b = await srv.balance(accountId);
    if (b.reserved === 0) return b;
    await sleep(20);
  }
  return srv.balance(accountId);
};

const short = liar('short', 90); // 110 s decoded
const long = liar('long', 1000); // 1,020 s decoded

t.test('a header that says under a minute, 110 s decoded: billed 2 minutes, all 110 s returned', async (t) => {
  t.ok(headerSeconds(short, 'short') < 60, 'ffprobe reads the header as under a minute');
  const c = await srv.client({ plan: 'enterprise', balance: '1' });
  const r = await postMultipart(`${srv.api}/denoise`, c.key.key, { files: { audio: short } });
  t.equal(r.status, 200);
  const wav = parseWav(r.body);
  const seconds = wav.data.length / 2 / wav.fmt.channels / wav.fmt.sampleRate;
  t.ok(Math.abs(seconds - 110) < 1, `the whole stream is denoised (${seconds.toFixed(2)} s)`);
  const after = await settled(c.account.id);
  t.equal(after.balance, 1_000_000 - 2 * 10_000, 'charged 2 started minutes (0.02)');
});

t.test('the same upload with money for one minute only: 402 / 40201, nothing charged', async (t) => {
  const c = await srv.client({ plan: 'enterprise', balance: '0.01' });
  const r = await postMultipart(`${srv.api}/denoise`, c.key.key, { files: { audio: short } });
  t.equal(r.status, 402);
  t.equal(r.json?.errorCode, 40201);
  const after = await settled(c.account.id);
  t.same([after.balance, after.reserved], [10_000, 0], 'nothing charged or held');
});

t.test('1,020 s behind a short header: 400 "Audio duration exceeds 15 minutes limit", nothing charged', async (t) => {
  t.ok(headerSeconds(long, 'long') < 900, 'ffprobe reads the header as under 15 minutes');
  const c = await srv.client({ plan: 'enterprise', balance: '1' });
  const r = await postMultipart(`${srv.api}/denoise`, c.key.key, { files: { audio: long } });
  t.equal(r.status, 400);
  t.same(r.json, { errorCode: 40001, errorMessage: 'Audio duration exceeds 15 minutes limit' });
  const after = await settled(c.account.id);
  t.same([after.balance, after.reserved], [1_000_000, 0], 'nothing charged or held');
});
