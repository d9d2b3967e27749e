// The parameter-level speaker mapping of HTS voices (cloning): all-pass constant for a
// formant warp, an EQ as a mel-cepstral offset, and the voice parameters it yields.
import t from 'tap';
import { ENGINE } from './helpers.js';

const { alphaForWarp, eqToMelCepstrum, htsVoiceToward, keepLoudness, melCepstrumGainDb, warpFrequency, TRAINED_ALPHA, HTS_RATE } = await import(ENGINE);

/** Log gain (dB) at `hz` of the mel-cepstrum `c` vocoded with `alpha`. */
function gainDb(c, alpha, hz) {
  const wt = warpFrequency((2 * Math.PI * hz) / HTS_RATE, alpha);
  return (c.reduce((s, cm, m) => s + cm * Math.cos(m * wt), 0) * 20) / Math.LN10;
}

t.test('alphaForWarp', async (t) => {
  t.ok(Math.abs(alphaForWarp(1) - TRAINED_ALPHA) < 1e-6, 'no warp keeps the trained constant');
  t.ok(Math.abs(alphaForWarp(1, 0.5) - 0.5) < 1e-6, 'no warp keeps a voice\'s own constant');
  const up = alphaForWarp(1.1), down = alphaForWarp(0.9);
  t.ok(up < TRAINED_ALPHA && down > TRAINED_ALPHA, `formants up → lower alpha (${up.toFixed(3)}), down → higher (${down.toFixed(3)})`);
  // The formant at 1 kHz moves by about the factor asked for.
  const at = (hz, alpha) => (warpFrequency(warpFrequency((2 * Math.PI * hz) / HTS_RATE, TRAINED_ALPHA), -alpha) * HTS_RATE) / (2 * Math.PI);
  const ratio = at(1000, up) / at(1000, TRAINED_ALPHA);
  t.ok(Math.abs(ratio - 1.1) < 0.02, `1 kHz moves ×${ratio.toFixed(3)} for a warp of 1.1`);
  t.equal(alphaForWarp(10), 0.3, 'kept within its range');
});

t.test('eqToMelCepstrum reproduces a smooth EQ', async (t) => {
  const bins = 513, rate = 24000;
  const eq = Array.from({ length: bins }, (_, i) => {
    const hz = (i * rate) / 2 / (bins - 1);
    return 6 * Math.sin((2 * Math.PI * Math.log2(Math.max(hz, 100) / 100)) / 6); // ±6 dB, one cycle over 6 octaves
  });
  t.same(eqToMelCepstrum(new Array(bins).fill(0), rate, TRAINED_ALPHA), new Array(35).fill(0), 'a flat EQ changes nothing');
  for (const alpha of [TRAINED_ALPHA, 0.48]) {
    const c = eqToMelCepstrum(eq, rate, alpha);
    t.equal(c.length, 35);
    t.equal(c[0], 0, 'the level is left alone');
    // Up to the mean removed by c0 = 0: compare shapes over 300 Hz–3.8 kHz (followed fully up to 4 kHz).
    const hzs = [300, 500, 800, 1200, 2000, 3000, 3800];
    const want = hzs.map((hz) => eq[Math.round((hz / (rate / 2)) * (bins - 1))]);
    const got = hzs.map((hz) => gainDb(c, alpha, hz));
    const offset = got.reduce((s, g, i) => s + g - want[i], 0) / hzs.length;
    const worst = Math.max(...got.map((g, i) => Math.abs(g - offset - want[i])));
    t.ok(worst < 1, `alpha ${alpha}: EQ reproduced within ${worst.toFixed(2)} dB`);
    t.ok(Math.abs(gainDb(c, alpha, 9000) - offset) < 1, 'nothing applied above 6 kHz');
  }
});

t.test('htsVoiceToward', async (t) => {
  const base = { halfTone: 5, f0Spread: 1.2, alpha: 0.5 };
  const m = { baseLogF0Center: Math.log(180), baseLogF0Mean: Math.log(180), baseLogF0Std: 0.1, refLogF0Center: Math.log(240), refLogF0Std: 0.14, warp: 1.1, eqDb: new Array(513).fill(0), eqRate: 24000 };
  const full = htsVoiceToward(base, m, 1);
  t.ok(Math.abs(full.halfTone - 5 - 12 * Math.log2(240 / 180)) < 1e-9, `F0 median reached (${full.halfTone.toFixed(2)} half-tones)`);
  t.ok(Math.abs(full.f0Spread - 1.2 * 1.4) < 1e-9, 'spread scaled by the std ratio');
  t.ok(full.alpha < 0.5, 'formants raised');
  const half = htsVoiceToward(base, m, 0.5);
  t.ok(Math.abs(half.halfTone - 5 - 6 * Math.log2(240 / 180)) < 1e-9, 'half the way in log F0 at similarity 0.5');
  t.same(htsVoiceToward(base, m, 0), { ...base, halfTone: 5, f0Spread: 1.2, alpha: 0.5, mgcOffset: undefined }, 'similarity 0: the base voice');
  t.ok(Math.abs(htsVoiceToward(base, { ...m, refLogF0Std: 10 }, 1).f0Spread - 1.8) < 1e-9, 'spread ratio capped at 1.5');
  // A skewed base (median above mean): widening the spread lifts the median, the shift makes up for it.
  const skewed = htsVoiceToward(base, { ...m, baseLogF0Mean: Math.log(170) }, 1);
  const ratio = skewed.f0Spread / 1.2, shift = ((skewed.halfTone - 5) * Math.LN2) / 12;
  const median = Math.log(170) + shift + (Math.log(180) - Math.log(170)) * ratio;
  t.ok(Math.abs(median - Math.log(240)) < 1e-9 && skewed.halfTone < full.halfTone, `median reached with ${skewed.halfTone.toFixed(2)} half-tones (${full.halfTone.toFixed(2)} unskewed)`);
});

t.test('keepLoudness: an EQ reshapes the voice without changing its power (within 6 dB of make-up)', async (t) => {
  const bins = 513, rate = 24000;
  const hzOf = (i) => (i * rate) / 2 / (bins - 1);
  const ltas = Array.from({ length: bins }, (_, i) => -12 * Math.log2(Math.max(hzOf(i), 100) / 500)); // speech-like: falls 12 dB an octave above 500 Hz
  const power = (c) => ltas.reduce((s, l, i) => s + 10 ** ((l + (c ? melCepstrumGainDb(c, TRAINED_ALPHA, hzOf(i)) : 0)) / 10), 0);
  const tilt = (db) => Array.from({ length: bins }, (_, i) => Math.max(-db, Math.min(db, db * Math.log2(Math.max(hzOf(i), 100) / 1000))));
  const c = eqToMelCepstrum(tilt(4), rate, TRAINED_ALPHA);
  const kept = keepLoudness(c, TRAINED_ALPHA, ltas, rate);
  const db = (c) => 10 * Math.log10(power(c) / power(null));
  t.ok(Math.abs(db(c)) > 1, `the EQ alone changes the power by ${db(c).toFixed(2)} dB`);
  t.ok(Math.abs(db(kept)) < 0.05, `kept: ${db(kept).toFixed(3)} dB`);
  t.same(kept.slice(1), c.slice(1), 'only c0 changes');
  const huge = keepLoudness(eqToMelCepstrum(tilt(10).map((d) => d - 10), rate, TRAINED_ALPHA), TRAINED_ALPHA, ltas, rate);
  t.ok(db(huge) < -1, `make-up capped at 6 dB (${db(huge).toFixed(2)} dB left)`);
});
