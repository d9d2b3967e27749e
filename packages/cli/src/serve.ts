import { createSawt } from '@sawt/core';

/** `sawt serve`: boots every configured plugin and shuts down gracefully on SIGTERM/SIGINT. */
export async function serve(): Promise<number> {
  const app = await createSawt();
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
  app.logger.info('stopped');
  return exitCode;
}
