/**
 * Signed job webhooks: `POST callback_url` with the job's outcome and
 * `Sawt-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">` under the account's secret.
 * Retried with exponential backoff for 24 hours on a non-2xx answer, a timeout (10 s) or a
 * network error; redirects are not followed (a 3xx is a failed attempt).
 */
import { createHmac, randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { resolveWebhookTarget, type WebhookAllowList } from './webhook-target.js';

export const SIGNATURE_HEADER = 'Sawt-Signature';

export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('hex')}`;
}

export function signature(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export interface DeliveryResult {
  ok: boolean;
  status: number | null;
  error: string | null;
}

export interface DeliverySettings {
  timeoutMs: number;
  allow: WebhookAllowList;
  userAgent: string;
}

/** One attempt: resolves (never rejects) with the answer's status or what went wrong. */
export async function deliver(callbackUrl: string, secret: string, body: string, settings: DeliverySettings, now = Date.now()): Promise<DeliveryResult> {
  let target;
  try {
    target = await resolveWebhookTarget(callbackUrl, settings.allow);
  } catch (e) {
    return { ok: false, status: null, error: (e as Error).message };
  }
  const t = Math.floor(now / 1000);
  // The connection goes to the address that was checked, whatever DNS says next.
  const pinned: LookupFunction = (_host, options, cb) => {
    if ((options as { all?: boolean }).all) (cb as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address: target.address, family: target.family }]);
    else cb(null, target.address, target.family);
  };
  const client = target.url.protocol === 'https:' ? https : http;
  return new Promise<DeliveryResult>((resolve) => {
    const req = client.request(target.url, {
      method: 'POST',
      lookup: pinned,
      timeout: settings.timeoutMs,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': settings.userAgent,
        [SIGNATURE_HEADER.toLowerCase()]: signature(secret, t, body),
      },
    }, (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      res.once('end', () => resolve({ ok: status >= 200 && status < 300, status, error: status >= 300 && status < 400 ? 'redirect not followed' : null }));
      res.once('error', () => resolve({ ok: false, status, error: 'the answer was cut off' }));
    });
    req.once('timeout', () => req.destroy(new Error(`no answer within ${settings.timeoutMs} ms`)));
    req.once('error', (e) => resolve({ ok: false, status: null, error: e.message }));
    req.end(body);
  });
}

/** When to try again after `attempts` failed ones (exponential, capped at an hour); null once 24 hours have passed. */
export function nextAttemptAt(attempts: number, firstAt: number, now: number, baseMs: number, windowMs: number): number | null {
  const delay = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), 3_600_000);
  const at = now + delay;
  return at - firstAt > windowMs ? null : at;
}
