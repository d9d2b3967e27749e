// `sawt text … --file PATH|-`: one output line per input line, in order, in one process; --json
// one object per line; the diacritizer (when the shared model is there) batched across lines.
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { tempDir, repoRoot, runSawt as sawt } from '../helpers/server.js';

// The CLI finds the diacritizer as the server does: SAWT_MODELS_DIR (empty here), then the bundled models/.
const haveTashkeel = existsSync(path.join(repoRoot, 'models/tashkeel/libtashkeel-2024-01-04.onnx'));

const LINES = ['وصل في 15/3/2024 ودفع $25', '', 'نظام GPS في القرن 21', 'كتاباً', '   ', 'الخصم 30% على 500 منتج'];

t.test('normalize --file: one line out per line in, in order, empty lines kept', { timeout: 120000 }, async (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'in.txt');
  writeFileSync(file, `${LINES.join('\n')}\n`);
  const env = { SAWT_DATA_DIR: dir, SAWT_MODELS_DIR: path.join(dir, 'models') };
  const r = await sawt(['text', 'normalize', '--file', file], { env });
  t.equal(r.code, 0, r.stderr);
  const out = r.stdout.split('\n');
  t.equal(out.length, LINES.length + 1, 'one line per input line (and the final newline)');
  t.equal(out[0], 'وصل في الخامس عشر من مارس عام ألفين وأربعة وعشرين ودفع خمسة وعشرين دولاراً');
  t.equal(out[1], '');
  t.equal(out[2], 'نظام GPS في القرن الحادي والعشرين');
  t.equal(out[4], '');
  t.equal(out[5], 'الخصم ثلاثون بالمئة على خمسمئة منتج');

  const j = await sawt(['text', 'normalize', '--file', '-', '--json'], { input: LINES.join('\r\n'), env });
  t.equal(j.code, 0, j.stderr);
  const rows = j.stdout.trim().split('\n').map((l) => JSON.parse(l));
  t.same(rows.map((x) => x.line), [1, 2, 3, 4, 5, 6]);
  t.same(rows.map((x) => x.input), LINES, 'CRLF input read as lines');
  t.equal(rows[2].output, out[2]);

  const missing = await sawt(['text', 'normalize', '--file', path.join(dir, 'nope.txt')], { env });
  t.equal(missing.code, 2);
  t.match(missing.stderr, /^sawt: --file: cannot read .*nope\.txt.*ENOENT/u);
  const both = await sawt(['text', 'normalize', 'نص', '--file', file], { env });
  t.equal(both.code, 2, 'TEXT and --file together is a usage error');
});

t.test('diacritize and phonemize --file batch through the model', { timeout: 180000, skip: !haveTashkeel && 'libtashkeel model not bundled in models/' }, async (t) => {
  const dir = tempDir(t);
  const many = Array.from({ length: 70 }, (_, i) => (i % 3 === 0 ? 'ذهب الولد إلى المدرسة' : i % 3 === 1 ? `اشترى ${i} كتاباً` : 'حمّلت تطبيق WhatsApp'));
  const env = { SAWT_DATA_DIR: dir, SAWT_MODELS_DIR: path.join(dir, 'models') };
  const d = await sawt(['text', 'diacritize', '--file', '-'], { input: many.join('\n'), env });
  t.equal(d.code, 0, d.stderr);
  const out = d.stdout.split('\n').slice(0, -1);
  t.equal(out.length, many.length);
  t.equal(out[0], 'ذَهَبَ الْوَلَدُ إِلَى الْمَدْرَسَةِ');
  t.equal(out[66], out[0], 'the same line gives the same output wherever it is in the batch');
  t.match(out[2], /WhatsApp/u, 'diacritize leaves Latin words as written');
  const single = await sawt(['text', 'diacritize', many[1]], { env });
  t.equal(out[1], single.stdout.trim(), 'a batched line equals the same line alone');
  const p = await sawt(['text', 'phonemize', '--file', '-', '--json'], { input: 'حمّلت تطبيق WhatsApp\nكتاباً', env });
  const [a, b] = p.stdout.trim().split('\n').map((l) => JSON.parse(l));
  t.notMatch(a.output, /WhatsApp/u, 'Latin words become phonemes');
  t.match(b.output, /kit,a:ban/u);
});
