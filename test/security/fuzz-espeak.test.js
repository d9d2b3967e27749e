// The espeak input path's fuzz harness (`npm run fuzz`), a short run: the known crasher of issue 28
// first, then ~20 s of random input with a fixed seed through the real synthesizer in a child
// process. No input may kill the child; --direct (no front end, no validator) shows the harness sees
// a crash when there is one.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { repoRoot } from '../helpers/server.js';

/** The input of issue 28's finding 1 (segfaulted espeak-ng 1.51 in the server). */
const CRASHER = `مرحبا [[${'a:'.repeat(200)}]] بكم في خدمة`;

const run = promisify(execFile);
const script = path.join(repoRoot, 'scripts/fuzz-espeak.mjs');

async function fuzz(t, ...args) {
  const out = mkdtempSync(path.join(tmpdir(), 'sawt-fuzz-test-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const input = path.join(out, 'known.json');
  // Found by the 30-minute run: Braille patterns of 7 or 8 dots abort espeak-ng (its dot names overflow a buffer).
  // And a character espeak-ng reads with a second language's translator that cannot name it (Georgian
  // U+10CE, Kannada U+0CFC, Hangul U+11DD; a Greek letter glued to another letter): espeak-ng frees the
  // translator still reading the word (a use after free: a segfault once the memory is reused).
  writeFileSync(input, JSON.stringify([CRASHER, `مرحبا [[${'a'.repeat(400)}]] بكم في خدمة`, 'مرحبا ⣿ بكم ⣟⣯ في خدمة',
    'مرحبا \u10ce بكم \u0cfc في \u11dd خدمة', 'قيمة πب تقريبا ϗ', 'azGeCKVq\u10cebö ᇝ ppREaön']));
  const res = await run(process.execPath, [script, '--out', out, '--input', input, ...args], { cwd: repoRoot, maxBuffer: 64 << 20 }).catch((e) => e);
  const lines = res.stdout.trim().split('\n');
  return { code: res.code ?? 0, summary: JSON.parse(lines[lines.length - 1]), stdout: res.stdout };
}

t.test('20 s of fuzzing (seed 28) and the known crashers: no crash, no hang', async (t) => {
  const { code, summary, stdout } = await fuzz(t, '--seconds', '20', '--seed', '28');
  t.equal(summary.crashes, 0, `no crash${summary.crashes ? `:\n${stdout}` : ''}`);
  t.equal(summary.hangs, 0, 'no hang');
  t.equal(code, 0, 'exit 0');
  t.ok(summary.inputs > 50, `${summary.inputs} inputs tried`);
  t.ok(summary.spoken > 0 && summary.refused > 0, `spoken ${summary.spoken}, refused ${summary.refused}`);
});

t.test('the harness reports a crash with its input (--direct: espeak without the validator)', async (t) => {
  const { code, summary, stdout } = await fuzz(t, '--seconds', '1', '--direct');
  t.equal(code, 1, 'exit 1');
  t.ok(summary.crashes >= 1, 'the crasher kills the child');
  t.match(stdout, /CRASH: SIGSEGV on input 0/);
  const saved = JSON.parse(readFileSync(summary.found[0], 'utf8'));
  t.equal(saved.text, CRASHER, 'the input written to the crash file');
});
