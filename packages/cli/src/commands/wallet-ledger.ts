import { fromMicro, tokens } from '@sawt/core';
import { withAdminApp } from '../admin.js';
import { required, UsageError } from '../args.js';
import { accountOrFail, type Handler } from '../command.js';
import { human } from '../printable.js';

const DEFAULT_LIMIT = 100;

/** `sawt wallet ledger --account ID [--limit N]`: the latest money movements, oldest first, releases with their reason. */
export const walletLedger: Handler = async ({ values }) => {
  const accountId = required(values, 'account');
  let limit = DEFAULT_LIMIT;
  if (typeof values.limit === 'string') {
    limit = Number(values.limit);
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100_000) throw new UsageError(`--limit must be an integer between 1 and 100000 but received ${JSON.stringify(values.limit)}`);
  }
  return withAdminApp(async (app) => {
    await accountOrFail(app, accountId);
    const entries = (await app.get(tokens.wallet).ledger(accountId, { limit })).reverse();
    const json = entries.map((e) => ({
      id: e.id, created_at: e.createdAt, kind: e.kind, amount: fromMicro(e.amount), balance_after: fromMicro(e.balanceAfter),
      request_id: e.requestId, reservation_id: e.reservationId, description: e.description,
    }));
    const lines = json.map((e) => human`${e.created_at}  ${e.kind.padEnd(7)} ${String(e.amount).padStart(14)}  balance ${String(e.balance_after).padStart(14)}  ${e.request_id ?? '-'}${e.description ? `  ${e.description}` : ''}`);
    return { json, text: lines.join('\n') || '(no movements)' };
  });
};
