import { SawtError, tokens, type SawtApp } from '@sawt/core';
import type { Flags } from './args.js';

/** What a CLI command returns: its output for --json and for people. */
export interface CommandResult {
  json: unknown;
  text: string;
  /** Set when the command did its work but some of it failed: printed on stderr (one line), exit 1. */
  failure?: string;
}

/** What a command is called with: its options by long name (`expires-at`, `json`) and its arguments. */
export interface CommandInput {
  values: Flags;
  positionals: string[];
}

/** One CLI command: returns what --json prints and what a person reads (commander parsed its options). */
export type Handler = (input: CommandInput) => Promise<CommandResult>;

export async function accountOrFail(app: SawtApp, id: string) {
  const acc = await app.get(tokens.accounts).get(id);
  if (!acc) throw new SawtError('notFound', `Account '${id}' not found`);
  return acc;
}
