// Which job runs when: a plan's number of concurrent jobs (free: 1), accounts served fairly (one
// account's many jobs do not starve another's one), and finished jobs removed with their files
// once their retention ends.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { startServer } from '../helpers/server.js';
import { BOOK_SPOKEN, getJob, jobsConfig, pollJob, submitJob } from './helpers.js';

const server = await startServer(t, { config: jobsConfig({ runners: 1 }) });
const { api } = server;
const job = (headers, title, on = api) => submitJob(on, headers, 'sawt-mini', { voice_id: 'fusha-omar', text: BOOK_SPOKEN, title }).then((r) => r.body.job_id);

t.test('a free account runs one job at a time; another account is not starved by its queue', async (t) => {
  const free = await server.client({ plan: 'free', balance: '10' });
  const big = await server.client({ plan: 'enterprise', balance: '10' });
  const bigJobs = [await job(big.headers, 'b1'), await job(big.headers, 'b2'), await job(big.headers, 'b3'), await job(big.headers, 'b4')];
  const freeJobs = [await job(free.headers, 'f1'), await job(free.headers, 'f2')];
  let both = 0;
  await pollJob(api, free.headers, freeJobs[1], {
    until: async (j) => {
      const first = (await getJob(api, free.headers, freeJobs[0])).body;
      if (first.status === 'running' && j.status === 'running') both++;
      return j.status === 'succeeded';
    },
  });
  t.equal(both, 0, 'the free account\'s two jobs never ran at once');
  const [f1, f2] = await Promise.all(freeJobs.map(async (id) => (await getJob(api, free.headers, id)).body));
  t.ok(f2.started_at >= f1.finished_at, `the second started once the first had finished (${f2.started_at} ≥ ${f1.finished_at})`);
  const bigLast = (await pollJob(api, big.headers, bigJobs[3])).at(-1);
  t.equal(bigLast.status, 'succeeded');
  t.ok(f2.finished_at < bigLast.finished_at, 'the free account\'s jobs, submitted after the four others, did not wait for all of them');
});

t.test('a finished job is removed with its files when its retention ends', async (t) => {
  const brief = await startServer(t, { config: jobsConfig({ runners: 1, retentionHours: 3 / 3600 }) });
  const { api } = brief;
  const { headers } = await brief.client();
  const id = await job(headers, 'short-lived', api);
  const done = (await pollJob(api, headers, id)).at(-1);
  t.equal(done.status, 'succeeded');
  t.ok(Date.parse(done.expires_at) - Date.parse(done.finished_at) === 3000, 'kept for the configured time');
  const dir = path.join(brief.dataDir, 'blobs', 'jobs', id);
  const stored = readdirSync(dir);
  t.ok(stored.some((f) => /^audio-\w+\.mp3$/.test(f)) && stored.some((f) => /^timeline-\w+\.json$/.test(f)), `its audio and captions are stored: ${stored.join(', ')}`);
  const gone = await (async () => {
    for (let i = 0; i < 200; i++) {
      if ((await getJob(api, headers, id)).status === 404) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  })();
  t.ok(gone, 'then it is gone');
  t.notOk(existsSync(dir), 'and so are its audio, captions and folder');
});
