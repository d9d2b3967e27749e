// node bench/hts-dialect-g.js: how the HTS voice renders /g/, a sound it never learned (the stop of
// Egyptian ج and of Gulf/Najdi ق; the voice's `g` is غ, a voiced fricative). Per candidate: DNSMOS
// P.835 of sentences full of the sound, and the voicing measured in the /g/ segments (share of their
// frames the engine generates voiced, from htsParameters' labelFrames). Candidates: the phones
// k (a stop at the same place, voiceless), q (uvular stop), g (غ) and j (the voice's ج), and
// `k+voiced-closure`: k whose closure (first 60 % of its frames) is made voiced at the parameter
// level by the engine (voicedClosures: log F0 bridged from the voiced neighbours), what the dialect
// voices use (their rules write G).
// Straight on the addon (no server); the bundled voice (models/). Results go to bench/results/.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { here, htsPcm, round, writeResults } from './harness.js';
import { createDnsmos, DNSMOS_PATH } from './dnsmos.js';

const E = { ...(await import('../plugins/engine/dist/index.js')), ...(await import('@sawt/native')) };
const voicePath = path.resolve(here, '../models/hts/ara_norm_ziad/ara_norm_ziad_hts.htsvoice');
if (!existsSync(voicePath) || !existsSync(DNSMOS_PATH)) {
  console.error('bench/hts-dialect-g: needs the bundled HTS voice and DNSMOS under ../shared/models');
  process.exit(1);
}
const MARK = 'KG', MARK2 = 'KGG';
// Sentences (diacritized) rich in the sound: ق for Najdi, ج for Egyptian.
const SETS = {
  najdi: [
    'قَالَ الْقَائِدُ إِنَّ الْقَافِلَةَ وَصَلَتْ قَبْلَ الْقَمَرِ.',
    'قَرَأَ الْقَاضِي الْقَرَارَ فِي قَاعَةِ الْمَحْكَمَةِ.',
    'يَقُولُ صَدِيقِي إِنَّ الطَّرِيقَ قَرِيبٌ مِنَ السُّوقِ.',
    'قَطَعَ الْفَرِيقُ مَسَافَةً طَوِيلَةً فِي الْوَقْتِ الْمُحَدَّدِ.',
    'قَدَّمَ الْقَلْبُ الْقَوِيُّ قُوَّةً لِلْقَوْمِ.',
    'وَقَفَ الْقِطَارُ قُرْبَ الْقَرْيَةِ الْقَدِيمَةِ.',
  ],
  egyptian: [
    'جَاءَ جَارِي الْجَدِيدُ إِلَى الْجَامِعَةِ يَوْمَ الْجُمُعَةِ.',
    'الْجَوُّ جَمِيلٌ جِدًّا فِي الْجَبَلِ.',
    'جَلَسَ الْجُنُودُ عَلَى جَانِبِ الْجِسْرِ.',
    'وَجَدْتُ الْجَوَابَ فِي الْجَرِيدَةِ.',
    'جَمَعَ الْجَدُّ أَحْفَادَهُ حَوْلَ الْجَمْرِ.',
    'تَجْرِي الْجِيَادُ فِي الْمَرْجِ الْأَخْضَرِ.',
  ],
};

/** The dialect with its /g/ rules writing MARK (MARK2 for the geminate): found in the labels, then spelled as the candidate. */
function markedDialect(name) {
  const spec = JSON.parse(readFileSync(path.join(E.BUILTIN_DIALECTS_DIR, `${name}.json`), 'utf8'));
  for (const r of spec.hts.rules) {
    if (r.replace === 'G') r.replace = MARK;
    else if (r.replace === 'GG') r.replace = MARK2;
  }
  return new E.Dialect({ ...spec, rules: [] });
}

/** Labels per sentence with the /g/ phones spelled `phone`, and the indices of the /g/ labels. */
function labelsFor(sentences, dialect, phone) {
  const gem = phone === 'ah' ? 'ahh' : phone + phone;
  return sentences.flatMap((s) => E.textToLabels(E.normalizeText(s), E.DEFAULT_LABEL_OPTIONS, (p) => dialect.applyHts(p))).map((labels) => {
    const at = labels.flatMap((l, i) => (/-KGG?\+/.test(l) ? [i] : []));
    const spell = (l) => l.replace(/(?<=^|[\^\-+=])KGG(?=[\^\-+=@])/g, gem).replace(/(?<=^|[\^\-+=])KG(?=[\^\-+=@])/g, phone);
    return { labels: labels.map(spell), at };
  });
}

const pcmOf = (options) => htsPcm(E.synthesizeHtsStream, { voicePath, ...options });

const voicedShare = (ps, ats) => {
  let voiced = 0, all = 0;
  ps.forEach((p, u) => {
    for (const i of ats[u]) for (let f = p.labelFrames[i]; f < (p.labelFrames[i + 1] ?? p.frames); f++, all++) if (!Number.isNaN(p.lf0[f])) voiced++;
  });
  return all ? round(voiced / all, 3) : null;
};

const score = await createDnsmos(24000);
const results = { date: new Date().toISOString(), note: 'voicedShare: share of the /g/ segments\' frames generated voiced (closure and release)', sets: {} };
for (const [name, sentences] of Object.entries(SETS)) {
  const rows = {};
  for (const cand of ['k', 'q', 'g', 'j', 'k+voiced-closure']) {
    const utts = labelsFor(sentences, markedDialect(name), cand === 'k+voiced-closure' ? 'k' : cand);
    // The voiced closure as the engine makes it in synthesis (voicedClosures), not an edit here.
    const closures = (u) => (cand === 'k+voiced-closure' ? { voicedClosures: [u.at] } : {});
    const edited = [];
    const scores = [];
    for (const u of utts) {
      edited.push(...(await E.htsParameters({ voicePath, utterances: [u.labels], threads: 1, ...closures(u) })));
      scores.push(await score(await pcmOf({ utterances: [u.labels], ...closures(u) })));
    }
    const mean = (k) => round(scores.reduce((a, x) => a + x[k], 0) / scores.length, 3);
    rows[cand] = { SIG: mean('sig'), BAK: mean('bak'), OVRL: mean('ovrl'), voicedShare: voicedShare(edited, utts.map((u) => u.at)), segments: utts.reduce((n, u) => n + u.at.length, 0) };
  }
  results.sets[name] = rows;
}
writeResults('hts-dialect-g', results);
