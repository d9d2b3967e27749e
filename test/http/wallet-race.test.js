import t from 'tap';
import { startServer, SENTENCE } from '../helpers/server.js';

t.test('50 parallel requests against a balance that covers 10: exactly 10 succeed, the balance ends at zero', async (t) => {
  const srv = await startServer(t);
  const chars = [...SENTENCE].length;
  const cost = chars * 100; // micro-units at 0.0001 per character
  const balance = ((cost * 10) / 1e6).toFixed(6);
  const c = await srv.client({ plan: 'enterprise', balance });
  const body = JSON.stringify({ voice_id: 'egyptian-karim', text: SENTENCE, stability: 0.5, streaming: false });
  const results = await Promise.all(
    Array.from({ length: 50 }, async () => {
      const res = await fetch(`${srv.api}/text-to-speech/sawt-mini`, { method: 'POST', headers: c.headers, body });
      const payload = Buffer.from(await res.arrayBuffer());
      return { status: res.status, payload };
    }),
  );
  const ok = results.filter((r) => r.status === 200);
  const poor = results.filter((r) => r.status === 402);
  t.equal(ok.length, 10, '10 succeed');
  t.equal(poor.length, 40, '40 get 402');
  for (const r of poor) t.equal(JSON.parse(r.payload.toString()).errorCode, 40201);
  for (const r of ok) t.ok(r.payload.length > 44 + 24000, 'each success carries audio');
  const b = await srv.balance(c.account.id);
  t.equal(b.balance, 0, 'balance exactly zero');
  t.equal(b.reserved, 0, 'nothing left reserved');
});
