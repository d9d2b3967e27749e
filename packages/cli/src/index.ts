import { fromMicro, PLANS, ENDPOINT_SCOPES, tokens, toMicro, SawtError, type ApiKeyRecord, type EndpointScope, type Plan, type SawtApp, type TextStageName } from '@sawt/core';
import { withAdminApp } from './admin.js';
import { flags, required, UsageError, type Flags } from './args.js';
import { accountOrFail, type Handler } from './command.js';
import { modelsPull } from './commands/models-pull.js';
import { modelsVerify } from './commands/models-verify.js';
import { TEXT_USAGE, textCommand } from './commands/text.js';
import { walletLedger } from './commands/wallet-ledger.js';
import { human, printable } from './printable.js';
import { serve } from './serve.js';

const USAGE = `Usage: sawt <command> [options] [--json]

  serve [--workers N]                     start the HTTP API (SAWT_HOST, SAWT_PORT, SAWT_DATA_DIR, SAWT_CONFIG, SAWT_MODELS_DIR)
                                          in N processes on one port (default SAWT_WORKERS, else one per core)
  migrate                                 apply the database migrations once (before starting or rolling nodes)
  accounts create --name NAME --plan PLAN --balance AMOUNT
  accounts list
  keys create --account ID [--endpoints LIST] [--expires-at ISO8601] [--quota-chars N]
  keys list [--account ID]
  keys revoke --id KEY_ID
  keys delete --id KEY_ID
  voices list [--account ID]              cloned voices (every account's without --account)
  voices delete --id VOICE_ID             delete a cloned voice: its record and stored files
  wallet topup --account ID --amount AMOUNT
  wallet show --account ID
  wallet ledger --account ID [--limit N]  the account's latest money movements (default 100), oldest first
  models list
  models grant --account ID --model MODEL_ID
  models pull [NAME...] [--force]         fetch the catalog's model files (NAME: a model_id or 'diacritizer'; none: all)
                                          into SAWT_MODELS_DIR, with sha256 check, progress and resume
  models verify                           check every installed model file against the catalog's sha256
${TEXT_USAGE}

PLAN: ${PLANS.join(' ')}
LIST: comma-separated scopes from: ${ENDPOINT_SCOPES.join(', ')}`;

function keyJson(k: ApiKeyRecord & { key?: string }) {
  return {
    id: k.id,
    ...(k.key ? { key: k.key } : {}),
    account_id: k.accountId,
    prefix: k.prefix,
    endpoints: k.endpoints,
    expires_at: k.expiresAt,
    quota_chars: k.quotaChars,
    used_chars: k.usedChars,
    revoked_at: k.revokedAt,
    created_at: k.createdAt,
  };
}

function parseAmount(v: string, name: string): number {
  let micro: number;
  try {
    micro = toMicro(v);
  } catch {
    throw new UsageError(`--${name} must be a decimal amount (at most 6 decimals) but received ${JSON.stringify(v)}`);
  }
  if (micro < 0) throw new UsageError(`--${name} must not be negative`);
  return micro;
}

async function walletJson(app: SawtApp, accountId: string) {
  const b = await app.get(tokens.wallet).balance(accountId);
  return { account_id: accountId, balance: fromMicro(b.balance), reserved: fromMicro(b.reserved), available: fromMicro(b.available) };
}

const TEXT_STAGES: readonly TextStageName[] = ['normalize', 'diacritize', 'phonemize'];

const commands: Record<string, Handler> = {
  async 'accounts create'(argv) {
    const { values } = flags(argv, { name: 'string', plan: 'string', balance: 'string' });
    const name = required(values, 'name');
    const plan = required(values, 'plan');
    if (!(PLANS as readonly string[]).includes(plan)) throw new UsageError(`--plan must be one of ${PLANS.join(', ')} but received ${JSON.stringify(plan)}`);
    const balance = parseAmount(typeof values.balance === 'string' ? values.balance : '0', 'balance');
    return withAdminApp(async (app) => {
      // One transaction: a failure leaves no account behind, so a retry cannot duplicate it.
      const { account: acc, balance: b } = await app.get(tokens.wallet).openAccount({ name, plan: plan as Plan, balanceMicro: balance, description: 'opening balance (admin CLI)' });
      const json = { id: acc.id, name: acc.name, plan: acc.plan, balance: fromMicro(b.balance) };
      return { json, text: human`account ${acc.id} (${acc.name}, ${acc.plan}) balance ${json.balance}` };
    });
  },
  async 'accounts list'(argv) {
    flags(argv, {});
    return withAdminApp(async (app) => {
      const list = await app.get(tokens.accounts).list();
      const json = await Promise.all(list.map(async (a) => ({ id: a.id, name: a.name, plan: a.plan, balance: (await walletJson(app, a.id)).balance, created_at: a.createdAt })));
      return { json, text: json.map((a) => human`${a.id}  ${a.plan.padEnd(10)} ${String(a.balance).padStart(12)}  ${a.name}`).join('\n') || '(no accounts)' };
    });
  },
  async 'keys create'(argv) {
    const { values } = flags(argv, { account: 'string', endpoints: 'string', 'expires-at': 'string', 'quota-chars': 'string' });
    const accountId = required(values, 'account');
    let endpoints: EndpointScope[] | null = null;
    if (typeof values.endpoints === 'string') {
      const list = values.endpoints.split(',').map((s) => s.trim()).filter(Boolean);
      const bad = list.filter((s) => !(ENDPOINT_SCOPES as readonly string[]).includes(s));
      if (bad.length || list.length === 0) throw new UsageError(`--endpoints must be a comma-separated list of ${ENDPOINT_SCOPES.join(', ')} but received ${JSON.stringify(values.endpoints)}`);
      endpoints = list as EndpointScope[];
    }
    let expiresAt: string | null = null;
    if (typeof values['expires-at'] === 'string') {
      const d = new Date(values['expires-at']);
      if (Number.isNaN(d.getTime())) throw new UsageError(`--expires-at must be an ISO 8601 date-time but received ${JSON.stringify(values['expires-at'])}`);
      expiresAt = d.toISOString();
    }
    let quotaChars: number | null = null;
    if (typeof values['quota-chars'] === 'string') {
      quotaChars = Number(values['quota-chars']);
      if (!Number.isSafeInteger(quotaChars) || quotaChars < 0) throw new UsageError(`--quota-chars must be a non-negative integer but received ${JSON.stringify(values['quota-chars'])}`);
    }
    return withAdminApp(async (app) => {
      await accountOrFail(app, accountId);
      const k = await app.get(tokens.apiKeys).create({ accountId, endpoints, expiresAt, quotaChars });
      return { json: keyJson(k), text: human`key ${k.id}\n${k.key}\n(the key is shown only once; store it safely)` };
    });
  },
  async 'keys list'(argv) {
    const { values } = flags(argv, { account: 'string' });
    return withAdminApp(async (app) => {
      const list = await app.get(tokens.apiKeys).list(typeof values.account === 'string' ? values.account : undefined);
      const json = list.map(keyJson);
      return { json, text: json.map((k) => human`${k.id}  ${k.prefix}…  account ${k.account_id}${k.revoked_at ? '  revoked' : ''}`).join('\n') || '(no keys)' };
    });
  },
  async 'keys revoke'(argv) {
    const { values } = flags(argv, { id: 'string' });
    const id = required(values, 'id');
    return withAdminApp(async (app) => {
      const k = await app.get(tokens.apiKeys).revoke(id);
      return { json: keyJson(k), text: human`key ${id} revoked` };
    });
  },
  async 'keys delete'(argv) {
    const { values } = flags(argv, { id: 'string' });
    const id = required(values, 'id');
    return withAdminApp(async (app) => {
      await app.get(tokens.apiKeys).delete(id);
      return { json: { id, deleted: true }, text: human`key ${id} deleted` };
    });
  },
  async 'voices list'(argv) {
    const { values } = flags(argv, { account: 'string' });
    return withAdminApp(async (app) => {
      const list = await app.get(tokens.voiceCloning).list(typeof values.account === 'string' ? values.account : undefined);
      const json = list.map((v) => ({ voice_id: v.voice_id, account_id: v.account_id, name: v.name, created_at: v.created_at }));
      return { json, text: json.map((v) => human`${v.voice_id}  account ${v.account_id}  ${v.name}`).join('\n') || '(no cloned voices)' };
    });
  },
  async 'voices delete'(argv) {
    const { values } = flags(argv, { id: 'string' });
    const id = required(values, 'id');
    return withAdminApp(async (app) => {
      if (!(await app.get(tokens.voiceCloning).delete(id))) throw new Error(`Cloned voice ${JSON.stringify(id)} not found`);
      return { json: { voice_id: id, deleted: true }, text: human`voice ${id} deleted` };
    });
  },
  async 'wallet topup'(argv) {
    const { values } = flags(argv, { account: 'string', amount: 'string' });
    const accountId = required(values, 'account');
    const amount = parseAmount(required(values, 'amount'), 'amount');
    if (amount === 0) throw new UsageError('--amount must be greater than zero');
    return withAdminApp(async (app) => {
      await accountOrFail(app, accountId);
      await app.get(tokens.wallet).topUp(accountId, amount, { description: 'top-up (admin CLI)' });
      const json = await walletJson(app, accountId);
      return { json, text: human`balance ${json.balance} (available ${json.available})` };
    });
  },
  async 'wallet show'(argv) {
    const { values } = flags(argv, { account: 'string' });
    const accountId = required(values, 'account');
    return withAdminApp(async (app) => {
      await accountOrFail(app, accountId);
      const json = await walletJson(app, accountId);
      return { json, text: human`balance ${json.balance} (reserved ${json.reserved}, available ${json.available})` };
    });
  },
  'wallet ledger': walletLedger,
  async 'models list'(argv) {
    flags(argv, {});
    return withAdminApp(async (app) => {
      const json = app.get(tokens.models).list().map((m) => ({
        id: m.id, model_id: m.model_id, model_name: m.model_name, description: m.description,
        engine: m.engine, cost_per_char: m.cost_per_char, access: m.access, available: m.available,
      }));
      return { json, text: json.map((m) => human`${m.model_id.padEnd(20)} ${m.engine.padEnd(8)} ${String(m.cost_per_char).padEnd(10)} ${m.access.padEnd(8)} ${m.available ? 'available' : 'files missing'}`).join('\n') };
    });
  },
  async 'models grant'(argv) {
    const { values } = flags(argv, { account: 'string', model: 'string' });
    const accountId = required(values, 'account');
    const modelId = required(values, 'model');
    return withAdminApp(async (app) => {
      await accountOrFail(app, accountId);
      if (!app.get(tokens.models).get(modelId)) throw new SawtError('notFound', `Model '${modelId}' not found`);
      await app.get(tokens.accounts).grantModel(accountId, modelId);
      const granted = await app.get(tokens.accounts).modelGrants(accountId);
      return { json: { account_id: accountId, model_id: modelId, granted: true, models: granted }, text: human`model ${modelId} granted to ${accountId}` };
    });
  },
  async migrate(argv) {
    flags(argv, {});
    // Booting the data layer applies what is pending (under the database's migration lock).
    return withAdminApp(async (app) => {
      const db = app.get(tokens.database);
      const [{ n }] = await db.knex('sawt_migrations').count({ n: '*' });
      return { json: { dialect: db.dialect, migrations: Number(n) }, text: human`database (${db.dialect}) up to date: ${Number(n)} migrations applied` };
    });
  },
  'models pull': modelsPull,
  'models verify': modelsVerify,
};

export async function main(argv: string[]): Promise<number> {
  // One-word commands (migrate) take every following argument as their flags.
  const oneWord = argv[0] === 'migrate';
  const [group, action, ...rest] = oneWord ? [argv[0], '', ...argv.slice(1)] : argv;
  if (!group || group === '--help' || group === 'help' || group === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return group ? 0 : 1;
  }
  if (group === 'serve') return serve(argv.slice(1));
  if (group === 'text' && (TEXT_STAGES as readonly string[]).includes(action ?? '')) return runReporting(() => textCommand(action as TextStageName, rest));
  const handler = commands[`${group} ${action ?? ''}`.trim()];
  if (!handler) {
    process.stderr.write(`sawt: unknown command '${printable([group, action].filter(Boolean).join(' '))}'. Run 'sawt --help'.\n`);
    return 2;
  }
  const json = rest.includes('--json');
  return runReporting(async () => {
    const out = await handler(rest);
    process.stdout.write(json ? `${JSON.stringify(out.json)}\n` : `${out.text}\n`);
    if (out.failure) throw new Error(out.failure); // the work was done, some of it failed: exit 1
  });
}

/** Runs a command: exit 0, or a one-line message on stderr and 2 (usage) or 1. */
async function runReporting(fn: () => Promise<void>): Promise<number> {
  try {
    await fn();
    return 0;
  } catch (e) {
    process.stderr.write(`sawt: ${printable((e as Error).message)}\n`);
    return e instanceof UsageError ? 2 : 1;
  }
}

export type { Flags };
