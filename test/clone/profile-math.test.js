// The maths of voice cloning without a server: the profile measured on synthetic speech of
// known F0, formants and syllable rate; the reference mapped onto the closest base voice;
// the conversion settings at a similarity; the running F0 statistics that calibrate them.
import t from 'tap';
import { analyzeVoice } from '@sawt/native';
import { ENGINE } from '../hts/helpers.js';

const { baseSpeed, calibrate, closestBase, conversionAt, f0Mapping, logF0Center, mapOnto, rateRatio, speakerMapping, RunningF0, CLONE_RATE, MIN_CALIBRATION_FRAMES, MAX_CALIBRATION_FRAMES } = await import(ENGINE);

const near = (t, got, want, tol, what) => t.ok(Math.abs(got - want) <= tol, `${what}: ${got.toFixed(4)} (want ${want.toFixed(4)} ± ${tol})`);

/**
 * Vowel-like speech at CLONE_RATE: glottal pulses at `f0(t)` Hz through two resonators at
 * `formants`, in `bursts` syllables (half-sine envelopes, 1/syl s apart, with a pause between).
 */
function speech({ seconds = 4, f0 = () => 120, formants = [700, 1200], syl = 4 } = {}) {
  const n = seconds * CLONE_RATE, out = new Int16Array(n), y = formants.map(() => [0, 0]);
  let phase = 0;
  for (let i = 0; i < n; i++) {
    const time = i / CLONE_RATE;
    phase += f0(time) / CLONE_RATE;
    let s = 0;
    if (phase >= 1) {
      phase -= 1;
      s = 1;
    }
    formants.forEach((f, k) => {
      const r = 0.97, w = (2 * Math.PI * f) / CLONE_RATE;
      const v = s + 2 * r * Math.cos(w) * y[k][0] - r * r * y[k][1];
      y[k][1] = y[k][0];
      y[k][0] = v;
      s = v;
    });
    out[i] = Math.max(-32767, Math.min(32767, s * 300 * Math.sqrt(Math.max(0, Math.sin(Math.PI * syl * time)))));
  }
  return out;
}

const analyze = async (o) => {
  const { sampleRate: _sr, ...a } = await analyzeVoice(speech(o), CLONE_RATE);
  return a;
};

t.test('profile of synthetic speech: F0 median, log-F0 mean and spread, syllable rate', async (t) => {
  const flat = await analyze({});
  near(t, flat.f0Median, 120, 0.5, 'steady 120 Hz: F0 median');
  near(t, flat.logF0Mean, Math.log(120), 0.005, 'log-F0 mean');
  t.ok(flat.logF0Std < 0.01, `a steady pitch has no spread (${flat.logF0Std.toExponential(2)})`);
  // 4 s of sin(4πt) envelopes: 8 bursts, half of the time speech.
  near(t, flat.syllableRate * flat.speechSeconds, 8, 0.5, 'syllable nuclei found');
  near(t, flat.speechSeconds, 2, 0.3, 'seconds of speech');
  const slow = await analyze({ syl: 3 });
  near(t, slow.syllableRate * slow.speechSeconds, 6, 0.5, 'syllable nuclei at 3 bursts/2 s');
  t.ok(slow.syllableRate < flat.syllableRate, 'fewer syllables per second of speech');

  // F0 gliding ±half an octave around 100 Hz (0.5 Hz): log F0 = ln 100 + 0.5 ln 2 sin(πt),
  // so its mean is ln 100 and its spread 0.5 ln 2 / √2 ≈ 0.245.
  const glide = await analyze({ f0: (time) => 100 * Math.pow(2, 0.5 * Math.sin(Math.PI * time)) });
  near(t, glide.logF0Mean, Math.log(100), 0.03, 'gliding F0: log-F0 mean');
  near(t, glide.logF0Std, (0.5 * Math.LN2) / Math.SQRT2, 0.03, 'gliding F0: log-F0 spread');
  near(t, glide.f0Median, 100, 6, 'gliding F0: median');
  t.equal(glide.ltasDb.length, 513, 'a 513-bin long-term spectrum');
});

t.test('the reference mapped onto the closest base voice', async (t) => {
  const low = { voiceId: 'low', modelId: 'm', analysis: await analyze({ f0: () => 110 }) };
  // The higher base and the reference: 150 Hz with a 3 Hz vibrato of ±0.1 octave (which
  // smooths the long-term spectrum); the reference's formants 10% higher, 4 bursts per 2 s against 3.
  const vibrato = (time) => 150 * Math.pow(2, 0.1 * Math.sin(6 * Math.PI * time));
  const high = { voiceId: 'high', modelId: 'm', analysis: await analyze({ f0: vibrato, syl: 3 }) };
  const ref = await analyze({ f0: vibrato, formants: [770, 1320] });
  t.equal(closestBase(ref, [low, high]).voiceId, 'high', 'the base closest in log-F0');
  t.equal(closestBase({ logF0Mean: Math.log(100) }, [low, high]).voiceId, 'low');
  t.throws(() => closestBase(ref, []), /no base voice/);

  const m = mapOnto(ref, [low, high]);
  t.match(m.base, { voiceId: 'high', modelId: 'm', f0Median: high.analysis.f0Median, logF0Mean: high.analysis.logF0Mean, syllableRate: high.analysis.syllableRate });
  near(t, m.mapping.warp, 1.1, 0.02, 'formants 10% higher: warp');
  t.ok(m.mapping.spectralDistanceAfter < m.mapping.spectralDistanceBefore / 2, `warping brings the spectra closer (${m.mapping.spectralDistanceBefore.toFixed(2)} → ${m.mapping.spectralDistanceAfter.toFixed(2)} dB)`);
  t.equal(m.mapping.eqDb.length, 513);
  t.ok(m.mapping.eqDb.every((d) => Math.abs(d) <= 18 && Math.round(d * 100) / 100 === d), 'EQ within ±18 dB, rounded to 0.01 dB');
  near(t, m.mapping.rateRatio, rateRatio(ref.syllableRate, high.analysis.syllableRate), 1e-12, 'rate ratio reference/base');
  t.ok(m.mapping.rateRatio > 1, 'the reference speaks faster than its base');

  const same = mapOnto(low.analysis, [low]);
  t.equal(same.mapping.warp, 1, 'a speaker mapped onto itself: no warp');
  t.equal(same.mapping.spectralDistanceBefore, 0);
  t.ok(same.mapping.eqDb.every((d) => d === 0), 'and no EQ');
  t.equal(same.mapping.rateRatio, 1);
});

t.test('rate ratio, base speed and log-F0 centre', async (t) => {
  t.equal(rateRatio(5, 4), 1.25);
  t.equal(rateRatio(8, 4), 1.3, 'at most 1.3');
  t.equal(rateRatio(2, 4), 0.75, 'at least 0.75');
  t.equal(rateRatio(0, 4), 1, 'unknown reference rate');
  t.equal(rateRatio(4, 0), 1, 'unknown base rate');
  t.equal(baseSpeed(1, 1.2), 1.2);
  t.equal(baseSpeed(1.5, 1.2), 1.6, 'at most 1.6');
  t.equal(baseSpeed(0.7, 0.5), 0.5, 'at least 0.5');
  t.equal(logF0Center({ f0Median: 200, logF0Mean: 1 }), Math.log(200), 'the median when measured');
  t.equal(logF0Center({ f0Median: 0, logF0Mean: 5 }), 5, 'else the log-F0 mean');
});

t.test('F0 mapping and conversion settings at a similarity', async (t) => {
  const target = { similarity: 0.5, refLogF0Center: Math.log(200), refLogF0Std: 0.3 };
  const f = f0Mapping(Math.log(100), 0.1, target);
  near(t, f.srcLogF0Mean, Math.log(100), 1e-12, 'source centre');
  near(t, f.srcLogF0Std, 0.1, 1e-12, 'source spread');
  near(t, Math.exp(f.dstLogF0Mean), 100 * Math.SQRT2, 1e-9, 'half way to 200 Hz in log F0: 141 Hz');
  near(t, f.dstLogF0Std, 0.1 * Math.SQRT2, 1e-12, 'spread ratio 3 capped at 2, half of it in log');
  t.equal(f0Mapping(Math.log(100), 0, { ...target, similarity: 1 }).srcLogF0Std, 0.01, 'a spread of 0 counts as 0.01');
  near(t, f0Mapping(Math.log(100), 0.2, { ...target, refLogF0Std: 0.05, similarity: 1 }).dstLogF0Std, 0.1, 1e-12, 'spread ratio at least 0.5');

  const profile = {
    reference: { f0Median: 200, logF0Mean: Math.log(200), logF0Std: 0.2 },
    base: { voiceId: 'b', f0Median: 100, logF0Mean: Math.log(100), logF0Std: 0.1, syllableRate: 4 },
    mapping: { warp: 1.21, eqDb: [4, -2], rateRatio: 1.21, spectralDistanceBefore: 3, spectralDistanceAfter: 1 },
  };
  const full = conversionAt(profile, 1);
  near(t, Math.exp(full.params.dstLogF0Mean), 200, 1e-9, 'similarity 1: the reference\'s F0');
  near(t, full.params.dstLogF0Std, 0.2, 1e-12, 'and its spread');
  near(t, full.params.warp, 1.21, 1e-12, 'the full warp');
  t.same(full.params.eqDb, [4, -2], 'the full EQ');
  near(t, full.speedFactor, 1.21, 1e-12, 'the full rate ratio');
  t.same(full.f0, { similarity: 1, refLogF0Center: Math.log(200), refLogF0Std: 0.2 });
  const half = conversionAt(profile, 0.5);
  near(t, half.params.warp, 1.1, 1e-12, 'similarity 0.5: √warp');
  t.same(half.params.eqDb, [2, -1], 'half the EQ');
  near(t, half.speedFactor, 1.1, 1e-12, '√rate ratio');
  near(t, Math.exp(half.params.dstLogF0Mean), 100 * Math.SQRT2, 1e-9, 'half way in log F0');
  const none = conversionAt(profile, -3);
  t.equal(none.f0.similarity, 0, 'similarity kept within 0…1');
  t.equal(none.params.warp, 1);
  t.equal(none.speedFactor, 1);
  near(t, none.params.dstLogF0Mean, Math.log(100), 1e-12, 'similarity 0: the base F0');
  t.equal(conversionAt(profile, 7).f0.similarity, 1);

  const sm = speakerMapping(profile.reference, profile, [1, 2]);
  t.same(sm, {
    baseLogF0Center: Math.log(100), baseLogF0Mean: Math.log(100), baseLogF0Std: 0.1, refLogF0Center: Math.log(200), refLogF0Std: 0.2,
    warp: 1.21, eqDb: [4, -2], eqRate: CLONE_RATE, baseLtasDb: [1, 2],
  }, 'what an HTS base voice is moved by');
});

t.test('running F0 statistics calibrate the mapping', async (t) => {
  const r = new RunningF0();
  r.add(new Float64Array(MIN_CALIBRATION_FRAMES - 1).fill(150));
  t.equal(r.stats(), null, `fewer than ${MIN_CALIBRATION_FRAMES} voiced frames: no statistics`);
  const params = { srcLogF0Mean: 1, srcLogF0Std: 1, dstLogF0Mean: 2, dstLogF0Std: 2, warp: 1.1 };
  const target = { similarity: 1, refLogF0Center: Math.log(200), refLogF0Std: 0.2 };
  t.equal(calibrate(params, target, r), params, 'uncalibrated until then');

  // 100 frames at 100 Hz, 100 at 200 Hz, unvoiced frames between (ignored).
  const s = new RunningF0();
  s.add([...new Array(100).fill(100), 0, 0, 0, ...new Array(100).fill(200)]);
  const st = s.stats();
  t.equal(st.frames, 200, 'voiced frames only');
  near(t, st.center, Math.log(200), 1e-12, 'median: the upper middle frame');
  near(t, st.std, Math.LN2 / 2, 1e-12, 'spread of two equal halves an octave apart: ln 2 / 2');
  const c = calibrate(params, target, s);
  near(t, c.srcLogF0Mean, Math.log(200), 1e-12, 'calibrated source centre');
  near(t, c.srcLogF0Std, Math.LN2 / 2, 1e-12, 'calibrated source spread');
  near(t, c.dstLogF0Std, 0.2, 1e-12, 'the target spread (ratio 0.2 / 0.35 within 0.5…2)');
  t.equal(c.warp, 1.1, 'the rest of the settings kept');

  // The outer 5% are left out of the spread: 10 wild frames among 190 steady ones.
  const o = new RunningF0();
  o.add([...new Array(95).fill(120), ...new Array(5).fill(40), ...new Array(95).fill(120), ...new Array(5).fill(400)]);
  near(t, o.stats().std, 0, 1e-12, 'outliers trimmed');

  const long = new RunningF0();
  long.add(new Float64Array(MAX_CALIBRATION_FRAMES).fill(100));
  long.add(new Float64Array(MAX_CALIBRATION_FRAMES).fill(300));
  near(t, long.stats().center, Math.log(300), 1e-12, `only the latest ${MAX_CALIBRATION_FRAMES} frames are kept`);
  t.equal(long.stats().frames, MAX_CALIBRATION_FRAMES);
});
