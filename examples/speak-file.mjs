// Speaks a text file into a WAV file with @sawt/client.
//   SAWT_URL=http://127.0.0.1:8080 SAWT_API_KEY=sawt_… node examples/speak-file.mjs input.txt out.wav [voice_id] [model_id]
// Long files are split into paragraphs; each is streamed and appended as it arrives. A paragraph
// shorter than the API's minimum (3 words, 10 characters; a heading) is spoken with the next one.
import { readFileSync, writeFileSync } from 'node:fs';
import { SawtClient, SawtError, pcmToWav } from '@sawt/client';

const [input, output = 'out.wav', voiceId = 'fusha-omar', modelId = 'sawt-mini'] = process.argv.slice(2);
if (!input || !process.env.SAWT_API_KEY) {
  console.error('usage: SAWT_API_KEY=… [SAWT_URL=…] node examples/speak-file.mjs input.txt [out.wav] [voice_id] [model_id]');
  process.exit(2);
}
const sawt = new SawtClient({ baseUrl: process.env.SAWT_URL ?? 'http://127.0.0.1:8080', apiKey: process.env.SAWT_API_KEY, retry: { maxRetries: 3 } });

// The API speaks texts of at least 3 words and 10 characters: a shorter paragraph (a heading, a
// one-line greeting) is joined to the next one, the last to the one before it, as its own sentence.
const MIN_WORDS = 3;
const MIN_CHARS = 10;
const tooShort = (t) => t.split(' ').length < MIN_WORDS || [...t].length < MIN_CHARS;
const sentence = (t) => (/[.!?؟…:،,;؛]$/u.test(t) ? t : `${t}.`);
const paragraphs = [];
let pending = '';
for (const p of readFileSync(input, 'utf8').split(/\n\s*\n/).map((q) => q.replace(/\s+/g, ' ').trim()).filter(Boolean)) {
  const text = pending ? `${sentence(pending)} ${p}` : p;
  if (tooShort(text)) {
    pending = text;
  } else {
    paragraphs.push(text);
    pending = '';
  }
}
if (pending && paragraphs.length) paragraphs.push(`${sentence(paragraphs.pop())} ${pending}`);
else if (pending) paragraphs.push(pending);
const chunks = [];
try {
  for (const [i, text] of paragraphs.entries()) {
    let bytes = 0;
    for await (const pcm of sawt.streamTextToSpeech(modelId, { voice_id: voiceId, text, stability: 0.5 })) {
      chunks.push(pcm);
      bytes += pcm.length;
    }
    console.error(`paragraph ${i + 1}/${paragraphs.length}: ${(bytes / 48000).toFixed(1)} s`);
  }
} catch (e) {
  if (e instanceof SawtError) console.error(`${e.name} ${e.errorCode} (HTTP ${e.status}): ${e.message}`);
  else console.error(e);
  process.exit(1);
}
writeFileSync(output, pcmToWav(chunks));
console.error(`wrote ${output}`);
