// Shared by the jobs tests: a config whose jobs plugin works in small parts and looks for work
// often (short texts still make several parts), and polling a job to its end.
import { readFileSync } from 'node:fs';
import { defaultConfigPath, pollUntil } from '../helpers/server.js';
import { decode } from '../formats/decode.js';

/** The default config with the jobs plugin's options changed by `options`. */
export function jobsConfig(options = {}) {
  const config = JSON.parse(readFileSync(defaultConfigPath, 'utf8'));
  const jobs = config.plugins.find((p) => p.resolve === '@sawt/plugin-jobs');
  jobs.options = { ...jobs.options, partChars: 120, pollMs: 50, sweepMs: 200, leaseMs: 2000, runners: 2, ...options };
  return config;
}

/** Five sentences in two Markdown chapters: several parts of 120 characters. */
export const BOOK_MD = [
  '# الفصل الأول',
  '',
  'كان يا ما كان في قديم الزمان رجل يحب القراءة كثيرا. كان يقرأ كل يوم كتابا جديدا في مكتبة المدينة.',
  'وفي يوم من الأيام وجد كتابا قديما عن **البحر** والسفن.',
  '',
  '## الفصل الثاني',
  '',
  'قرر الرجل أن يسافر إلى البحر ليرى السفن بعينيه. وهناك تعلم [الصيد](https://example.com/fishing) من البحارة الطيبين.',
].join('\n');

/** The spoken text of BOOK_MD: what is billed (markup dropped, a full stop after each heading). */
export const BOOK_SPOKEN = [
  'الفصل الأول.',
  '',
  'كان يا ما كان في قديم الزمان رجل يحب القراءة كثيرا. كان يقرأ كل يوم كتابا جديدا في مكتبة المدينة.',
  'وفي يوم من الأيام وجد كتابا قديما عن البحر والسفن.',
  '',
  'الفصل الثاني.',
  '',
  'قرر الرجل أن يسافر إلى البحر ليرى السفن بعينيه. وهناك تعلم الصيد من البحارة الطيبين.',
].join('\n');

export async function submitJob(api, headers, modelId, body) {
  const res = await fetch(`${api}/text-to-speech/${modelId}/jobs`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

export async function getJob(api, headers, id) {
  const res = await fetch(`${api}/jobs/${id}`, { headers });
  return { status: res.status, body: await res.json() };
}

/** Polls the job until `until(job)` holds (default: it ended); returns every view seen, the last one last. */
export async function pollJob(api, headers, id, { until = (j) => ['succeeded', 'failed', 'canceled'].includes(j.status), ms = 120_000 } = {}) {
  const seen = [];
  await pollUntil(`job ${id}`, async () => {
    const { body } = await getJob(api, headers, id);
    seen.push(body);
    return until(body);
  }, ms, 50);
  return seen;
}

/** test/formats/decode.js's decode (async: it never blocks the in-process server). */
export const decodeAudio = decode;
