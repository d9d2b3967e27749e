// A long-form job's HTS work runs on the voice's background pool (native/priority_pool.cc,
// pools::Hts): threads of their own ("sawt-hts-bg"), niced 7 above the live pool's ("sawt-hts"),
// so live requests' first audio goes first on busy cores. Same audio either way.
import { readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { ENGINE, VOICE_FILE } from './helpers.js';

const { textToLabels } = await import(ENGINE);
const { synthesizeHtsStream } = await import('@sawt/native');

const TEXT = 'السَّلَامُ عَلَيْكُمْ وَرَحْمَةُ اللَّهِ.';

async function render(extra) {
  const bufs = [];
  for await (const { pcm } of synthesizeHtsStream({ voicePath: VOICE_FILE, utterances: textToLabels(TEXT), sampleRate: 24000, ...extra })) bufs.push(pcm);
  return Buffer.concat(bufs);
}

/** This process's threads named `name`: their nice values (/proc/self/task/<tid>/stat, field 19). */
function niceOf(name) {
  const out = [];
  for (const tid of readdirSync('/proc/self/task')) {
    let comm;
    try { comm = readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim(); } catch { continue; }
    if (comm !== name) continue;
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    out.push(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return out;
}

t.test('background HTS work: its own niced threads, the same audio', async (t) => {
  const live = await render({});
  t.same(niceOf('sawt-hts-bg'), [], 'no background pool before background work');
  const background = await render({ background: true });
  t.ok(live.length > 24000, 'live synthesis speaks');
  t.ok(background.equals(live), 'the background pool renders the same samples');
  const liveNice = niceOf('sawt-hts'), bgNice = niceOf('sawt-hts-bg');
  t.equal(bgNice.length, 2, 'the background pool has the voice\'s 2 threads');
  t.ok(liveNice.length >= 2, 'the live pool has its threads');
  for (const n of bgNice) t.equal(n, Math.min(19, liveNice[0] + 7), 'background threads run 7 nice levels below the live ones');
  t.throws(() => synthesizeHtsStream({ voicePath: VOICE_FILE, utterances: textToLabels(TEXT), background: 'yes' }), /Expected a boolean for background but received/);
});
