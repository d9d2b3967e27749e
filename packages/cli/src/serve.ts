import { createSawt } from '@sawt/core';
import { flags } from './args.js';

/** `sawt serve`: boots every configured plugin and shuts down gracefully on SIGTERM/SIGINT. */
export async function serve(argv: string[]): Promise<number> {
  flags(argv, {});
  const app = await createSawt();
  // Every promise is handled where it arises; should one slip through, it is logged as the bug it is and the
  // requests of everyone else go on (Node would otherwise end the process).
  const onUnhandled = (reason: unknown) => app.logger.error({ err: reason }, 'unhandled promise rejection (a bug); the server keeps running');
  process.on('unhandledRejection', onUnhandled);
  await app.start();
  const exitCode = await new Promise<number>((resolve) => {
    const shutdown = (signal: string) => {
      app.logger.info({ signal }, 'shutting down');
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      app.stop().then(() => resolve(0), (e) => {
        app.logger.error({ err: e }, 'shutdown failed');
        resolve(1);
      });
    };
    const onTerm = () => shutdown('SIGTERM');
    const onInt = () => shutdown('SIGINT');
    process.on('SIGTERM', onTerm);
    process.on('SIGINT', onInt);
  });
  process.off('unhandledRejection', onUnhandled);
  app.logger.info('stopped');
  return exitCode;
}
