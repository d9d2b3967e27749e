// Job parts run at background priority in the engine: the back end is asked for a part's
// sentences as 'later' work, never 'urgent', while a live request's first sentences are 'urgent'
// (what the native pools order by: a live client's first audio goes before any job's work). A back
// end that records what it is asked (fixtures/urgency-probe.js) is loaded by path.
import path from 'node:path';
import t from 'tap';
import { pollUntil, startServer } from '../helpers/server.js';
import { jobsConfig, pollJob, submitJob } from './helpers.js';
import { seen } from './fixtures/urgency-probe.js';

const PROBE = path.join(import.meta.dirname, 'fixtures/urgency-probe.js');
const config = jobsConfig();
config.plugins.push({ resolve: PROBE });
const server = await startServer(t, { config });
const { headers } = await server.client({ balance: '10' });

const SENTENCES = [
  'كان يا ما كان في قديم الزمان رجل يحب القراءة كثيرا.',
  'كان يقرأ كل يوم كتابا جديدا في مكتبة المدينة الكبيرة.',
  'وفي يوم من الأيام وجد كتابا قديما عن البحر والسفن.',
  'قرر الرجل أن يسافر إلى البحر ليرى السفن بعينيه.',
];

t.test('a live request: its first sentences urgent', async (t) => {
  seen.length = 0;
  const res = await fetch(`${server.api}/text-to-speech/probe-1`, {
    method: 'POST', headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ voice_id: 'probe-voice', text: SENTENCES.join(' '), stability: 0.5, streaming: false }),
  });
  t.equal(res.status, 200);
  await res.arrayBuffer();
  t.ok(seen.length > 0, `${seen.length} syntheses asked`);
  t.equal(seen[0].urgency, 'urgent', 'the first is urgent (nothing is heard before it)');
});

t.test('a job: every part, its first sentences too, is later work', async (t) => {
  seen.length = 0;
  const sub = await submitJob(server.api, headers, 'probe-1', { voice_id: 'probe-voice', text: SENTENCES.join('\n\n'), output_format: 'wav_24000' });
  t.equal(sub.status, 202);
  const job = (await pollJob(server.api, headers, sub.body.job_id)).at(-1);
  t.equal(job.status, 'succeeded');
  await pollUntil('the syntheses recorded', () => seen.length > 0);
  const parts = (await server.app.get((await import('@sawt/core')).tokens.database).knex('job_parts').where({ job_id: job.job_id }).count({ n: '*' }))[0].n;
  t.ok(Number(parts) > 1, `${parts} parts`);
  t.ok(seen.length >= Number(parts), `${seen.length} syntheses asked for them`);
  t.same(seen.filter((s) => s.urgency !== 'later'), [], 'none urgent');
});
