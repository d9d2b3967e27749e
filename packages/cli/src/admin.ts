import { createSawt, type SawtApp } from '@sawt/core';

/** Runs `fn` on every plugin but transports (a server's data); `start: false` only registers them (no migration). */
export async function withAdminApp<T>(fn: (app: SawtApp) => Promise<T>, opts: { start?: boolean } = {}): Promise<T> {
  const app = await createSawt({ skipTags: ['transport'], logger: quietLogger() });
  if (opts.start !== false) await app.start();
  try {
    return await fn(app);
  } finally {
    await app.stop();
  }
}

function quietLogger() {
  const noop = () => {};
  const l = { info: noop, debug: noop, warn: noop, error: (o: unknown, m?: string) => process.stderr.write(`${m ?? ''} ${o instanceof Error ? o.message : ''}\n`), child: () => l };
  return l;
}
