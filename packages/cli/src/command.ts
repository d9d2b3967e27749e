import { SawtError, tokens, type SawtApp } from '@sawt/core';

/** One CLI command: parses its argv and returns what --json prints and what a person reads. */
export type Handler = (argv: string[]) => Promise<{ json: unknown; text: string }>;

export async function accountOrFail(app: SawtApp, id: string) {
  const acc = await app.get(tokens.accounts).get(id);
  if (!acc) throw new SawtError('notFound', `Account '${id}' not found`);
  return acc;
}
