// Voice cloning on the HTS voice (sawt-hts): preview and clone with model sawt-hts are made
// from the HTS base voices, moved at the parameter level toward the reference speaker.
import t from 'tap';
import { parseWav, pcmStats, startServer } from '../helpers/server.js';
import { ENGINE } from '../hts/helpers.js';
import { cloneFields, postForm, PREVIEW_TEXT, previewFields, referenceWav } from './helpers.js';

const semitones = (a, b) => 12 * Math.log2(a / b);

const { analyzeVoice } = await import('@sawt/native');
const f0Of = async (pcm) => (await analyzeVoice(pcm, 24000)).f0Median;
const TEXT = 'السلام عليكم ورحمة الله وبركاته. يسعدنا أن نقدم لكم خدمة صوت لتحويل النص العربي إلى كلام واضح.';

t.test('cloning with model sawt-hts', async (t) => {
  const srv = await startServer(t);
  const owner = await srv.client({ plan: 'enterprise', balance: '100' });
  // A low voice (espeak elder, a few half-tones below the lowest HTS base voice) reading a long text.
  const ref = await referenceWav(srv, owner.headers, 'najdi-faisal');
  const refF0 = await f0Of(parseWav(ref).data);
  const tts = async (voiceId, model) => {
    const r = await fetch(`${srv.api}/text-to-speech/${model}`, { method: 'POST', headers: owner.headers, body: JSON.stringify({ voice_id: voiceId, text: TEXT, stability: 0.5, streaming: false }) });
    const body = Buffer.from(await r.arrayBuffer());
    return { status: r.status, pcm: r.status === 200 ? parseWav(body).data : body, body };
  };
  // The base voices of cloning that speak on sawt-hts (every built-in persona does).
  const baseF0 = {};
  for (const id of ['fusha-omar', 'fusha-layla', 'fusha-ziad', 'fusha-sami']) baseF0[id] = await f0Of((await tts(id, 'sawt-hts')).pcm);
  const basesText = Object.entries(baseF0).map(([id, f]) => `${id} ${f.toFixed(1)} Hz`).join(', ');

  t.test('preview at similarity 1 reaches the reference pitch, at 0 it is an HTS voice unchanged', async (t) => {
    const before = await srv.balance(owner.account.id);
    const full = await postForm(srv, '/voices/preview', owner.key.key, previewFields({ model_id: 'sawt-hts', similarity: '1', text: TEXT }), { file: ref });
    t.equal(full.status, 200, full.json ? JSON.stringify(full.json) : 'audio');
    const s = pcmStats(full.body);
    t.ok(s.seconds > 3 && s.rms > 300, `${s.seconds.toFixed(2)} s of speech, RMS ${Math.round(s.rms)}`);
    t.ok(s.peak < 32767, 'nothing clips');
    const f0 = await f0Of(full.body);
    t.ok(Math.abs(semitones(f0, refF0)) <= 1.5, `preview F0 ${f0.toFixed(1)} Hz vs reference ${refF0.toFixed(1)} Hz (HTS base voices: ${basesText})`);
    const after = await srv.balance(owner.account.id);
    t.equal(before.balance - after.balance, [...TEXT].length * 200, 'charged at the sawt-hts price');

    const none = await postForm(srv, '/voices/preview', owner.key.key, previewFields({ model_id: 'sawt-hts', similarity: '0', text: TEXT }), { file: ref });
    t.equal(none.status, 200);
    const f0None = await f0Of(none.body);
    const offBase = Math.min(...Object.values(baseF0).map((b) => Math.abs(semitones(f0None, b))));
    t.ok(offBase < 0.5, `similarity 0 is a built-in HTS voice unchanged (${f0None.toFixed(1)} Hz, ${offBase.toFixed(2)} half-tones from it)`);
    t.ok(Math.abs(semitones(f0None, refF0)) > Math.abs(semitones(f0, refF0)) + 1, 'and further from the reference than similarity 1');
  });

  t.test('a clone made with sawt-hts speaks with both models', async (t) => {
    const preview = await postForm(srv, '/voices/preview', owner.key.key, previewFields({ model_id: 'sawt-hts', similarity: '1' }), { file: ref });
    t.equal(preview.status, 200);
    const c = await postForm(srv, '/voices/clone', owner.key.key, cloneFields({ model: 'sawt-hts', text: PREVIEW_TEXT }), { voice_file: preview.body, reference_audio_file: ref });
    t.equal(c.status, 200, JSON.stringify(c.json));
    const id = c.json.voice_id;
    const hts = await tts(id, 'sawt-hts');
    t.equal(hts.status, 200);
    const f0 = await f0Of(hts.pcm);
    t.ok(Math.abs(semitones(f0, refF0)) <= 1.5, `sawt-hts clone F0 ${f0.toFixed(1)} Hz vs reference ${refF0.toFixed(1)} Hz`);
    const mini = await tts(id, 'sawt-mini');
    t.equal(mini.status, 200, 'the same clone over sawt-mini (an espeak base voice)');
    t.ok(pcmStats(mini.pcm).rms > 300, 'sawt-mini clone speaks');
    const other = await srv.client({ plan: 'enterprise', balance: '100' });
    const foreign = await fetch(`${srv.api}/text-to-speech/sawt-hts`, { method: 'POST', headers: other.headers, body: JSON.stringify({ voice_id: id, text: TEXT, stability: 0.5, streaming: true }) });
    t.equal(foreign.status, 404, 'another account cannot use it');
    t.equal((await foreign.json()).errorCode, 40401);
  });
});
