/** The accounts' webhook secrets (the jobs plugin provides them: its webhooks are signed with them). */
export interface WebhookSecrets {
  /** Makes or rotates `accountId`'s secret and returns it: the only time it is shown. */
  rotate(accountId: string): Promise<string>;
}
