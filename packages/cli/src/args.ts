import { parseArgs } from 'node:util';

export class UsageError extends Error {}

export type Flags = Record<string, string | boolean | undefined>;

/** Parses `--name value` flags; unknown flags are a usage error. */
export function flags(argv: string[], spec: Record<string, 'string' | 'boolean'>): { values: Flags; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.entries({ ...spec, json: 'boolean' as const }).map(([k, type]) => [k, { type }])),
      allowPositionals: true,
      strict: true,
    });
    return { values: values as Flags, positionals };
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function required(values: Flags, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v.trim();
}
