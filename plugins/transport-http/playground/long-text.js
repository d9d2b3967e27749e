// The "long text" tab: a text or a text/Markdown file submitted as a job (POST
// /text-to-speech/{model_id}/jobs), polled (GET /jobs/{id}) with its progress shown, then its
// audio played and offered with its captions (VTT, SRT) and chapters. What happened is kept in
// window.playground.stats.job for the end-to-end test.
import { findOutputFormat } from '@sawt/protocol';

const FINAL = new Set(['succeeded', 'failed', 'canceled']);
const urls = [];

/** `page`: { $, t, client(), voice(), model(), options() (text_type, dictionary locators), status(msg, isError), fail(e), stats }. */
export function setupLongText(page) {
  const { $, t, stats } = page;
  let current = null;
  let rate = null;

  const clock = (s) => `${Math.floor(s / 60)}:${String(Math.round(s % 60)).padStart(2, '0')}`;

  function show(job) {
    const j = stats.job;
    j.views.push({ status: job.status, progress: job.progress, characters_done: job.characters_done });
    const now = performance.now();
    if (rate && job.characters_done > rate.chars && now > rate.at) j.charsPerSecond = ((job.characters_done - rate.chars) * 1000) / (now - rate.at);
    if (!rate || job.characters_done > rate.chars) rate = { chars: job.characters_done, at: now };
    $('long-progress').value = job.progress;
    const parts = [
      `${t(job.status)} ${Math.floor(job.progress * 100)} %`,
      `${job.characters_done.toLocaleString()} / ${job.characters.toLocaleString()} ${t('chars')}`,
      `${job.audio_seconds.toFixed(1)} ${t('audioSec')}`,
    ];
    if (j.charsPerSecond) parts.push(`${Math.round(j.charsPerSecond)} ${t('perSecond')}`);
    if (job.eta_seconds !== null && !FINAL.has(job.status)) parts.push(`${t('eta')} ${clock(job.eta_seconds)}`);
    $('long-info').textContent = parts.join(' · ');
  }

  const blobUrl = (bytes, type) => {
    const url = URL.createObjectURL(new Blob([bytes], { type }));
    urls.push(url);
    return url;
  };

  async function showResult(job) {
    const client = page.client();
    const format = findOutputFormat(job.output_format);
    const [audio, vtt, srt, { chapters }] = await Promise.all([
      client.jobs.download(job.job_id), client.jobs.captions(job.job_id, 'vtt'), client.jobs.captions(job.job_id, 'srt'), client.jobs.chapters(job.job_id),
    ]);
    const player = $('long-audio');
    const playable = player.canPlayType(format.contentType.split(';')[0]) !== '';
    player.querySelector('track')?.remove();
    player.removeAttribute('src');
    if (playable) {
      const track = Object.assign(document.createElement('track'), { kind: 'captions', default: true, src: blobUrl(vtt, 'text/vtt'), srclang: 'ar' });
      player.append(track);
      track.track.mode = 'hidden';
      track.track.oncuechange = () => { $('long-caption').textContent = [...(track.track.activeCues ?? [])].map((c) => c.text).join(' '); };
      player.src = blobUrl(audio, format.contentType);
    }
    $('long-caption').textContent = playable ? '' : `${job.output_format}: ${t('notPlayable')}`;
    const name = (job.title || job.job_id).replace(/[\\/:*?"<>|]+/g, '_');
    Object.assign($('long-audio-link'), { href: blobUrl(audio, format.contentType), download: `${name}.${format.extension}` });
    Object.assign($('long-vtt'), { href: blobUrl(vtt, 'text/vtt'), download: `${name}.vtt` });
    Object.assign($('long-srt'), { href: blobUrl(srt, 'application/x-subrip'), download: `${name}.srt` });
    $('long-chapters').replaceChildren(...chapters.map((c) => {
      const li = document.createElement('li');
      const b = Object.assign(document.createElement('button'), { type: 'button', textContent: `${clock(c.start_seconds)} ${c.title}` });
      b.onclick = () => { player.currentTime = c.start_seconds; player.play().catch(() => {}); };
      li.append(b);
      return li;
    }));
    $('long-result').hidden = false;
    Object.assign(stats.job, {
      audioBytes: audio.length, format: job.output_format, playable, chapters: chapters.map((c) => c.title),
      cues: (vtt.match(/-->/g) ?? []).length, srtCues: (srt.match(/-->/g) ?? []).length,
    });
  }

  async function submit() {
    const client = page.client();
    if (!client) return page.status(t('needKey'), true);
    const file = $('long-file').files[0];
    const text = $('long-text').value.trim();
    if (!file && !text) return page.status(t('needText'), true);
    const options = page.options();
    const req = { voice_id: page.voice(), output_format: $('long-format').value, title: $('long-title').value.trim() || undefined, ...options };
    // A file is uploaded as it is; with a dictionary its text goes as JSON (the locators are an array).
    if (file && !options.pronunciation_dictionary_locators) Object.assign(req, { file, fileName: file.name });
    else req.text = file ? await file.text() : text;
    for (const u of urls.splice(0)) URL.revokeObjectURL(u);
    $('long-result').hidden = true;
    $('long-progress').value = 0;
    $('long-info').textContent = '';
    $('long-submit').disabled = true;
    rate = null;
    stats.job = null;
    try {
      const { job_id } = await client.jobs.create(page.model(), req);
      current = job_id;
      stats.job = { id: job_id, views: [], final: null, charsPerSecond: null };
      $('long-cancel').disabled = false;
      page.status(`${t('jobSubmitted')}: ${job_id}`);
      const last = await client.jobs.wait(job_id, { intervalMs: 400, onProgress: show });
      $('long-cancel').disabled = true;
      if (last.status === 'succeeded') {
        await showResult(last);
        page.status(t('jobDone'));
      } else if (last.status === 'failed') {
        page.status(`${t('jobFailed')} ${last.error?.errorCode ?? ''} ${last.error?.errorMessage ?? ''}`, true);
      } else {
        page.status(t('jobCanceled'));
      }
    } catch (e) {
      if (stats.job) stats.job.error = String(e?.message ?? e);
      page.fail(e);
    } finally {
      // The end of this submit, whatever it was (the test waits for it).
      if (stats.job) stats.job.final = stats.job.error ? 'error' : stats.job.views.at(-1)?.status ?? 'error';
      current = null;
      $('long-submit').disabled = false;
      $('long-cancel').disabled = true;
    }
  }

  async function cancel() {
    if (!current) return;
    $('long-cancel').disabled = true;
    // The poll sees the job canceled and ends; the reservation is released by the server.
    try { await page.client().jobs.cancel(current); } catch (e) { page.fail(e); }
  }

  $('long-submit').onclick = submit;
  $('long-cancel').onclick = cancel;
  $('long-text').oninput = () => { $('long-file').value = ''; };
}

/** Shows one tab's panel (`speak-section` or `long-section`) and marks its tab. */
export function setupTabs($) {
  const tabs = [$('tab-speak'), $('tab-long')];
  for (const tab of tabs) {
    tab.onclick = () => {
      for (const other of tabs) {
        other.setAttribute('aria-selected', String(other === tab));
        $(other.getAttribute('aria-controls')).hidden = other !== tab;
      }
    };
  }
}
