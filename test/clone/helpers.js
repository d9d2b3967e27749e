// Voice preview/clone helpers: multipart requests and a reference recording.
import { LONG_TEXT } from '../helpers/server.js';

export const PREVIEW_TEXT = 'مرحبا بكم في خدمة صوت للنطق العربي.';

/** A reference recording: another built-in voice reading a long text, as WAV (the server's own TTS). */
export async function referenceWav(srv, headers, voiceId = 'egyptian-karim', text = LONG_TEXT) {
  const r = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers, body: JSON.stringify({ voice_id: voiceId, text, stability: 0.5, streaming: false }) });
  if (r.status !== 200) throw new Error(`reference TTS failed: ${r.status} ${await r.text()}`);
  return Buffer.from(await r.arrayBuffer());
}

/** POSTs multipart `fields` (strings) and `files` ({name: Buffer}) to `path`. */
export async function postForm(srv, path, key, fields = {}, files = {}) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) fd.append(k, String(v));
  for (const [k, v] of Object.entries(files)) if (v !== undefined) fd.append(k, new Blob([v]), `${k}.bin`);
  const res = await fetch(`${srv.api}${path}`, { method: 'POST', headers: { 'x-api-key': key }, body: fd });
  const buf = Buffer.from(await res.arrayBuffer());
  let json = null;
  try { json = JSON.parse(buf.toString('utf8')); } catch { /* audio */ }
  return { status: res.status, headers: res.headers, body: buf, json };
}

export const previewFields = (o = {}) => ({ text: PREVIEW_TEXT, similarity: '0.8', model_id: 'sawt-mini', speed: '1', ...o });
export const cloneFields = (o = {}) => ({ name: 'My voice', text: PREVIEW_TEXT, stability: '0.5', model: 'sawt-mini', ...o });
