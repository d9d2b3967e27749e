import { SawtError, tokens, type SawtApp } from '@sawt/core';

/** What a CLI command returns: its output for --json and for people. */
export interface CommandResult {
  json: unknown;
  text: string;
  /** Set when the command did its work but some of it failed: printed on stderr (one line), exit 1. */
  failure?: string;
}

/** One CLI command: parses its argv and returns what --json prints and what a person reads. */
export type Handler = (argv: string[]) => Promise<CommandResult>;

export async function accountOrFail(app: SawtApp, id: string) {
  const acc = await app.get(tokens.accounts).get(id);
  if (!acc) throw new SawtError('notFound', `Account '${id}' not found`);
  return acc;
}
