// Issue 28, finding 2: uploads must never make ffmpeg read anything but the uploaded audio.
// An HLS playlist, an ffconcat list, a DASH manifest, an SDP file or an image uploaded to
// /denoise, /voices/preview or /voices/clone names a media file on the server; each is
// refused with 400 / 40001, and nothing of that file comes back (nor is stored as a clone).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { LONG_TEXT, startServer, tempDir } from '../helpers/server.js';
import { sniffAudioFile } from '@sawt/core';
import { cloneFields, ffmpeg, noise, postMultipart, previewFields, speechWav, uploadConfig } from './uploads-helpers.js';

const srv = await startServer(t, { config: uploadConfig() });
const { key } = await srv.client({ plan: 'enterprise', balance: '100' });

// The server's own media file the attacker points at: speech (so a preview or a clone made from it would succeed).
const secrets = tempDir(t, 'sawt-secret-media-');
const speech = await speechWav(srv.api, key.key, LONG_TEXT);
const secretWav = path.join(secrets, 'secret.wav');
writeFileSync(secretWav, speech);
const secretMp3 = ffmpeg(path.join(secrets, 'secret.mp3'), ['-i', secretWav]);
const png = readFileSync(ffmpeg(path.join(secrets, 'image.png'), ['-f', 'lavfi', '-i', 'color=red:size=8x8', '-frames:v', '1']));

const hls = (target) => `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:30\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:30.0,\n${target}\n#EXT-X-ENDLIST\n`;
const id3 = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0]); // an empty ID3v2.4 tag
const mpegFrameHeader = Buffer.from([0xff, 0xfb, 0x90, 0x64]); // MPEG-1 layer III, 128 kbit/s, 44.1 kHz
const payloads = {
  'HLS playlist, absolute path': Buffer.from(hls(secretMp3)),
  'HLS playlist, file: URL': Buffer.from(hls(`file:${secretMp3}`)),
  'HLS playlist behind an ID3 tag': Buffer.concat([id3, Buffer.from(hls(secretMp3))]),
  'HLS playlist behind an MPEG frame header': Buffer.concat([mpegFrameHeader, Buffer.from(hls(secretMp3))]),
  'ffconcat list': Buffer.from(`ffconcat version 1.0\nfile ${secretMp3}\nfile ${secretWav}\n`),
  'DASH manifest': Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT30S" minBufferTime="PT1S" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011">
<Period><AdaptationSet mimeType="audio/mpeg"><Representation id="a" bandwidth="64000"><BaseURL>file:${secretMp3}</BaseURL><SegmentBase/></Representation></AdaptationSet></Period></MPD>
`),
  'SDP session': Buffer.from('v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=x\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 5004 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n'),
  'PNG image': png,
};

t.test('control: the HLS payload reads the server file when ffmpeg guesses the format', async (t) => {
  const upload = path.join(secrets, 'upload.bin');
  writeFileSync(upload, payloads['HLS playlist, absolute path']);
  const pcm = execFileSync('ffmpeg', ['-v', 'quiet', '-i', upload, '-f', 's16le', '-'], { maxBuffer: 1 << 28 });
  t.ok(pcm.length > 24000, `a bare ffmpeg decodes ${pcm.length} bytes of the server file through the playlist`);
});

/** A refusal that carries nothing but the error: no audio, no bytes of the server file. */
function refused(t, r, what, message) {
  t.equal(r.status, 400, `${what}: 400`);
  t.equal(r.json?.errorCode, 40001, `${what}: 40001`);
  t.match(r.json?.errorMessage, message, `${what}: says the upload is not audio`);
  t.same(Object.keys(r.json ?? {}).sort(), ['errorCode', 'errorMessage'], `${what}: the error alone`);
  t.ok(r.body.length < 1024 && !/audio\/|octet/.test(String(r.headers['content-type'])), `${what}: no audio in the response (${r.body.length} bytes, ${r.headers['content-type']})`);
  t.equal(r.body.indexOf(speech.subarray(1000, 1016)), -1, `${what}: none of the server file's samples`);
}

t.test('POST /denoise (audio): every such upload is 400 / 40001', async (t) => {
  for (const [what, bytes] of Object.entries(payloads)) {
    refused(t, await postMultipart(`${srv.api}/denoise`, key.key, { files: { audio: bytes } }), what, /must be an audio file/);
  }
  // The same server file uploaded as itself is accepted: the refusals above are the format rules'.
  const direct = await postMultipart(`${srv.api}/denoise`, key.key, { files: { audio: readFileSync(secretMp3) } });
  t.equal(direct.status, 200, 'the MP3 itself is denoised');
});

t.test('POST /voices/preview (file): every such upload is 400 / 40001, nothing charged', async (t) => {
  const c = await srv.client({ plan: 'enterprise', balance: '100' });
  const before = await srv.balance(c.account.id);
  for (const [what, bytes] of Object.entries(payloads)) {
    refused(t, await postMultipart(`${srv.api}/voices/preview`, c.key.key, { fields: previewFields(), files: { file: bytes } }), what, /must be of audio type/);
  }
  const after = await srv.balance(c.account.id);
  t.same([after.balance, after.reserved], [before.balance, 0], 'nothing charged or reserved');
});

t.test('POST /voices/clone (reference_audio_file and voice_file): every such upload is 400 / 40001, no clone stored', async (t) => {
  for (const [what, bytes] of Object.entries(payloads)) {
    refused(t, await postMultipart(`${srv.api}/voices/clone`, key.key, { fields: cloneFields(), files: { voice_file: speech, reference_audio_file: bytes } }), `reference ${what}`, /reference_audio_file must be an audio file/);
    refused(t, await postMultipart(`${srv.api}/voices/clone`, key.key, { fields: cloneFields(), files: { voice_file: bytes, reference_audio_file: speech } }), `voice_file ${what}`, /voice_file must be an audio file/);
    refused(t, await postMultipart(`${srv.api}/voices/clone`, key.key, { fields: cloneFields(), files: { voice_file: bytes, reference_audio_file: bytes } }), `both ${what}`, /must be an audio file/);
  }
  const voices = await (await fetch(`${srv.api}/voices`, { headers: { 'x-api-key': key.key } })).json();
  const list = Array.isArray(voices) ? voices : voices.voices;
  t.equal(list.filter((v) => v.voice_id.startsWith('cv_')).length, 0, 'no cloned voice was stored');
});

t.test('every audio container on the list is still accepted, decided from the bytes', async (t) => {
  const amr = Buffer.concat([Buffer.from('#!AMR\n'), ...Array.from({ length: 150 }, (_, i) => Buffer.concat([Buffer.from([0x3c]), Buffer.alloc(31, i)]))]);
  const files = {
    'WAV': ['w.wav', []], 'MP3 with an ID3 tag': ['m.mp3', ['-id3v2_version', '3', '-metadata', 'title=x']], 'FLAC': ['f.flac', []],
    'Ogg Vorbis': ['v.ogg', ['-c:a', 'libvorbis']], 'Ogg Opus': ['o.opus', ['-c:a', 'libopus']], 'WebM Opus': ['w.webm', ['-c:a', 'libopus']],
    'M4A AAC': ['a.m4a', ['-c:a', 'aac']], 'ADTS AAC': ['a.aac', ['-c:a', 'aac', '-f', 'adts']],
  };
  const uploads = Object.fromEntries(Object.entries(files).map(([what, [name, args]]) => [what, readFileSync(noise(path.join(secrets, name), 2, { args }))]));
  uploads['AMR'] = amr;
  for (const [what, bytes] of Object.entries(uploads)) {
    const r = await postMultipart(`${srv.api}/denoise`, key.key, { files: { audio: bytes } });
    t.equal(r.status, 200, `${what}: denoised`);
  }
});

t.test('headerless PCM16 that starts like an MPEG frame is not taken for MP3', async (t) => {
  // Samples whose first bytes are an MPEG audio frame header, with no second frame where the first one ends.
  const pcm = Buffer.alloc(48000);
  for (let i = 0; i < pcm.length; i += 2) pcm.writeInt16LE(Math.round(3000 * Math.sin(i / 40)), i);
  Buffer.from([0xff, 0xfb, 0x90, 0x64]).copy(pcm);
  const file = path.join(secrets, 'pcm.raw');
  writeFileSync(file, pcm);
  t.equal(await sniffAudioFile(file), null, 'no container recognised: the clone may read it as raw PCM16');
  const mp3 = path.join(secrets, 'm.mp3');
  t.equal(await sniffAudioFile(mp3), 'mp3', 'a real MP3 (ID3 tag, then frames) is MP3');
});
