/** A usage error (bad or missing option value): exit 2. */
export class UsageError extends Error {}

/** A command's options by long name ('expires-at', 'json'), as commander parsed them. */
export type Flags = Record<string, string | boolean | undefined>;

/** The usage error of a file option (--file, --dictionary) whose file cannot be read. */
export function cannotRead(flag: string, file: string, e: NodeJS.ErrnoException): UsageError {
  return new UsageError(`${flag}: cannot read ${JSON.stringify(file)} (${e.code ?? e.message})`);
}

export function required(values: Flags, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v.trim() === '') throw new UsageError(`--${name} is required`);
  return v.trim();
}
