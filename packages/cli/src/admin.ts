import { createSawt, type SawtApp } from '@sawt/core';

/**
 * Boots the data layer (every plugin except transports) against the same data
 * dir and database as a running server, runs `fn`, and shuts down. With
 * `start: false` the plugins are only registered (catalogs are readable, nothing
 * is started: no database migration, no engine warm-up that a damaged model file could stop).
 */
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
