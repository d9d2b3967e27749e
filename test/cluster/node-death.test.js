// Node death in a cluster (config/cluster.json, a fresh PostgreSQL database and Redis
// prefix): a node killed with -9 gives its account's concurrency slot back by its
// lease (the shipped 15 s) and its reservation by the reservation lease; a node
// paused past its lease has its reservation released by the living node, never while
// it still heart-beats, and its late settle after it resumes charges nothing.
import t from 'tap';
import { SENTENCE } from '../helpers/server.js';
import { HELD_TEXT, eventually, freshCluster, openStream, servicesMissing, sleep, tts } from './fixtures/cluster.js';

const LEASES = { ttlMs: 4000, heartbeatMs: 1000, sweepMs: 1000 };

const missing = await servicesMissing();
if (missing) {
  t.test('node death in a cluster', { skip: missing }, () => {});
} else {
  t.test('node death in a cluster', async (t) => {
    // Short reservation leases so the test waits seconds, not the shipped minute; Redis slot leases as shipped.
    const c = await freshCluster(t, (plugins) => {
      plugins.find((p) => p.resolve === '@sawt/plugin-billing').options.leases = LEASES;
    });
    const [a, b, paused] = await Promise.all([c.node(), c.node(), c.node()]);
    const text = HELD_TEXT;
    const cost = [...text].length * 100;
    const ledgerOf = (id) => c.json('wallet', 'ledger', '--account', id);

    t.test('kill -9 of the node holding a free account\'s only slot: another node serves it within 30 s, nothing stays reserved', async (t) => {
      const free = await c.client({ plan: 'free', balance: '10' });
      const stream = await openStream(a, free.headers, text);
      t.equal((await tts(b, free.headers, SENTENCE)).json?.errorCode, 42901, 'the slot is held');
      t.ok((await c.wallet(free.account.id)).reserved > 0, 'and its money reserved');
      a.kill('SIGKILL');
      await a.exited;
      stream.abort();
      const { ms } = await eventually(async () => (await tts(b, free.headers, SENTENCE)).status === 200, { timeoutMs: 30_000, everyMs: 500, what: 'served by the living node' });
      t.pass(`served by the living node ${ms} ms after the kill`);
      await eventually(async () => (await c.wallet(free.account.id)).reserved === 0, { timeoutMs: 20_000, what: 'reservation released' });
      const w = await c.wallet(free.account.id);
      t.equal(Math.round((10 - w.balance) * 1e6), [...SENTENCE].length * 100, 'only the request the living node served is charged');
      const released = (await ledgerOf(free.account.id)).filter((e) => e.kind === 'release');
      t.equal(released.length, 1);
      t.match(released[0].description, /lease expired .*its owner stopped renewing it/);
    });

    t.test('a node paused (SIGSTOP) past its lease: released by the living node, never while it heart-beats; its late settle charges nothing', async (t) => {
      const cl = await c.client({ balance: '10' });
      const stream = await openStream(paused, cl.headers, text);
      // The client does not read for more than a lease: the owner lives and keeps renewing.
      await sleep(LEASES.ttlMs + 2 * LEASES.sweepMs + 500);
      t.equal(Math.round((await c.wallet(cl.account.id)).reserved * 1e6), cost, 'still reserved past the lease while its owner lives');
      paused.kill('SIGSTOP');
      const { ms } = await eventually(async () => (await c.wallet(cl.account.id)).reserved === 0, { timeoutMs: 30_000, what: 'released while paused' });
      t.pass(`released ${ms} ms after the pause`);
      t.equal((await c.wallet(cl.account.id)).balance, 10, 'given back, not charged');
      paused.kill('SIGCONT');
      const bytes = await stream.finish();
      t.ok(bytes > 1_000_000, `the resumed node delivers the rest (${bytes} bytes)`);
      await sleep(1500);
      const w = await c.wallet(cl.account.id);
      t.same([w.balance, w.reserved], [10, 0], 'the late settle was dropped: no double count');
      const ledger = await ledgerOf(cl.account.id);
      t.same(ledger.map((e) => e.kind), ['topup', 'reserve', 'release'], 'one reserve, one release, no settle');
      t.equal((await tts(paused, cl.headers, SENTENCE)).status, 200, 'the resumed node serves again');
    });
  });
}
