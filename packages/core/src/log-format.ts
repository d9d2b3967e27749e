import { createRequire } from 'node:module';
import { PluginError } from './plugin-errors.js';

/**
 * Where the log goes and in what form (SAWT_LOG_FORMAT): `json` (pino's lines, one JSON object
 * each, for log collectors), `pretty` (pino-pretty: time, level and message in colour, fields
 * indented below) for a person at a terminal. Unset: pretty when stdout is a terminal, else JSON.
 * Returns the stream for pino, or undefined for pino's own JSON on stdout.
 */
export function logDestination(env: NodeJS.ProcessEnv = process.env, isTTY = Boolean(process.stdout.isTTY)): NodeJS.WritableStream | undefined {
  const format = (env.SAWT_LOG_FORMAT ?? '').trim().toLowerCase() || (isTTY ? 'pretty' : 'json');
  if (format === 'json') return undefined;
  if (format !== 'pretty') throw new PluginError('SAWT_ERR_CONFIG', `SAWT_LOG_FORMAT must be "json" or "pretty" but is ${JSON.stringify(env.SAWT_LOG_FORMAT)}`);
  const pretty = createRequire(import.meta.url)('pino-pretty') as (opts: Record<string, unknown>) => NodeJS.WritableStream;
  // sync: every line is written before the next statement (a crash or exit loses none).
  return pretty({ sync: true, colorize: isTTY, translateTime: 'SYS:HH:MM:ss.l', ignore: 'hostname', singleLine: false });
}
