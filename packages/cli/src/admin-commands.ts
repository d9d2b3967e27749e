import { fromMicro, PLANS, tokens, toMicro, SawtError, type ApiKeyRecord, type EndpointScope, type Plan, type SawtApp } from '@sawt/core';
import { withAdminApp } from './admin.js';
import { required, UsageError } from './args.js';
import { accountOrFail, type Handler } from './command.js';
import { backup } from './commands/backup.js';
import { modelsPull } from './commands/models-pull.js';
import { modelsVerify } from './commands/models-verify.js';
import { walletLedger } from './commands/wallet-ledger.js';
import { human } from './printable.js';

/** `sawt voices list --model M` as GET /voices?model_id=M: the built-in personas, then the cloned voices. */
async function voicesOfModel(app: SawtApp, modelId: string, accountId: string | undefined) {
  const offered = app.get(tokens.models).list().filter((m) => m.available).map((m) => m.model_id);
  if (!offered.includes(modelId)) throw new UsageError(`--model: no model '${modelId}' is offered (models: ${offered.join(', ')})`);
  const builtin = (await app.get(tokens.voices).list('')).filter((v) => (v.models ?? offered).includes(modelId));
  const clones = await app.get(tokens.voiceCloning).list(accountId);
  const json = [
    ...builtin.map((v) => ({ voice_id: v.voice_id, name: v.name, gender: v.gender, dialect: v.dialect, models: v.models ?? offered })),
    ...clones.map((v) => ({ voice_id: v.voice_id, name: v.name, gender: v.gender, dialect: v.dialect, models: offered, account_id: v.account_id, created_at: v.created_at })),
  ];
  const text = json.map((v) => human`${v.voice_id}  ${v.name}  ${v.gender ?? '-'}  ${v.dialect.join(',')}  models ${v.models.join(',')}${'account_id' in v ? `  account ${v.account_id}` : ''}`).join('\n');
  return { json, text: text || `(no voice speaks on ${modelId})` };
}

function keyJson(k: ApiKeyRecord & { key?: string }) {
  return {
    id: k.id, ...(k.key ? { key: k.key } : {}), account_id: k.accountId, prefix: k.prefix, endpoints: k.endpoints, expires_at: k.expiresAt,
    quota_chars: k.quotaChars, used_chars: k.usedChars, revoked_at: k.revokedAt, created_at: k.createdAt,
  };
}

/** One key for people: id, prefix, account, then what limits it (expiry, scopes, quota) and its state. */
function keyLine(k: ReturnType<typeof keyJson>): string {
  const now = Date.now();
  const state = k.revoked_at ? `revoked ${k.revoked_at}` : k.expires_at && Date.parse(k.expires_at) <= now ? 'expired' : 'active';
  const quota = k.quota_chars === null ? `${k.used_chars} chars used, no quota` : `${k.used_chars}/${k.quota_chars} chars`;
  return human`${k.id}  ${k.prefix}…  account ${k.account_id}  ${state}  expires ${k.expires_at ?? 'never'}  scopes ${k.endpoints?.join(',') ?? 'all'}  ${quota}`;
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

/** The admin commands by path ('keys create'); program.ts gives each its options, help and examples. */
export const commands: Record<string, Handler> = {
  async 'accounts create'({ values }) {
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
  async 'accounts list'() {
    return withAdminApp(async (app) => {
      const list = await app.get(tokens.accounts).list();
      const json = await Promise.all(list.map(async (a) => ({ id: a.id, name: a.name, plan: a.plan, balance: (await walletJson(app, a.id)).balance, created_at: a.createdAt })));
      return { json, text: json.map((a) => human`${a.id}  ${a.plan.padEnd(10)} ${String(a.balance).padStart(12)}  ${a.name}`).join('\n') || '(no accounts)' };
    });
  },
  async 'accounts webhook-secret'({ values }) {
    const accountId = required(values, 'account');
    return withAdminApp(async (app) => {
      await accountOrFail(app, accountId);
      if (!app.has(tokens.webhookSecrets)) throw new Error('long-form jobs are not enabled on this server (the jobs plugin is not in its config): there are no webhooks to sign');
      const secret = await app.get(tokens.webhookSecrets).rotate(accountId);
      return { json: { secret }, text: human`${secret}\n(the account's new webhook secret, shown only now; job webhooks are signed with it, the old one no longer verifies)` };
    });
  },
  async 'keys create'({ values }) {
    const accountId = required(values, 'account');
    const endpoints: EndpointScope[] | null = typeof values.endpoints === 'string' ? values.endpoints.split(',').map((s) => s.trim()).filter(Boolean) : null;
    let expiresAt: string | null = null;
    if (typeof values['expires-at'] === 'string') {
      const d = new Date(values['expires-at']);
      if (Number.isNaN(d.getTime())) throw new UsageError(`--expires-at must be an ISO 8601 date-time but received ${JSON.stringify(values['expires-at'])}`);
      // Exit 1, no key made: a key born expired could never be used.
      if (d.getTime() <= Date.now()) throw new Error(`--expires-at ${d.toISOString()} is in the past: a key must expire later than now`);
      expiresAt = d.toISOString();
    }
    let quotaChars: number | null = null;
    if (typeof values['quota-chars'] === 'string') {
      quotaChars = Number(values['quota-chars']);
      if (!Number.isSafeInteger(quotaChars) || quotaChars < 0) throw new UsageError(`--quota-chars must be a non-negative integer but received ${JSON.stringify(values['quota-chars'])}`);
    }
    return withAdminApp(async (app) => {
      // The scopes are those the configured plugins declare.
      const scopes = app.get(tokens.scopes).names;
      if (endpoints && (endpoints.length === 0 || endpoints.some((s) => !scopes.includes(s)))) {
        throw new UsageError(`--endpoints must be a comma-separated list of ${scopes.join(', ')} but received ${JSON.stringify(values.endpoints)}`);
      }
      await accountOrFail(app, accountId);
      const k = await app.get(tokens.apiKeys).create({ accountId, endpoints, expiresAt, quotaChars });
      return { json: keyJson(k), text: human`key ${k.id}\n${k.key}\n(the key is shown only once; store it safely)` };
    });
  },
  async 'keys list'({ values }) {
    const accountId = typeof values.account === 'string' ? values.account : undefined;
    return withAdminApp(async (app) => {
      if (accountId !== undefined) await accountOrFail(app, accountId);
      const list = await app.get(tokens.apiKeys).list(accountId);
      const json = list.map(keyJson);
      return { json, text: json.map(keyLine).join('\n') || '(no keys)' };
    });
  },
  async 'keys revoke'({ values }) {
    const id = required(values, 'id');
    return withAdminApp(async (app) => {
      const k = await app.get(tokens.apiKeys).revoke(id);
      return { json: keyJson(k), text: human`key ${id} revoked` };
    });
  },
  async 'keys delete'({ values }) {
    const id = required(values, 'id');
    return withAdminApp(async (app) => {
      await app.get(tokens.apiKeys).delete(id);
      return { json: { id, deleted: true }, text: human`key ${id} deleted` };
    });
  },
  async 'voices list'({ values }) {
    const accountId = typeof values.account === 'string' ? values.account : undefined;
    const modelId = typeof values.model === 'string' ? values.model : undefined;
    return withAdminApp(async (app) => {
      if (accountId !== undefined) await accountOrFail(app, accountId);
      if (modelId !== undefined) return voicesOfModel(app, modelId, accountId);
      const list = await app.get(tokens.voiceCloning).list(accountId);
      const json = list.map((v) => ({ voice_id: v.voice_id, account_id: v.account_id, name: v.name, created_at: v.created_at }));
      return { json, text: json.map((v) => human`${v.voice_id}  account ${v.account_id}  ${v.name}`).join('\n') || '(no cloned voices)' };
    });
  },
  async 'voices delete'({ values }) {
    const id = required(values, 'id');
    return withAdminApp(async (app) => {
      if (!(await app.get(tokens.voiceCloning).delete(id))) throw new Error(`Cloned voice ${JSON.stringify(id)} not found`);
      return { json: { voice_id: id, deleted: true }, text: human`voice ${id} deleted` };
    });
  },
  async 'wallet topup'({ values }) {
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
  async 'wallet show'({ values }) {
    const accountId = required(values, 'account');
    return withAdminApp(async (app) => {
      await accountOrFail(app, accountId);
      const json = await walletJson(app, accountId);
      return { json, text: human`balance ${json.balance} (reserved ${json.reserved}, available ${json.available})` };
    });
  },
  'wallet ledger': walletLedger,
  async 'models list'() {
    return withAdminApp(async (app) => {
      const json = app.get(tokens.models).list().map((m) => ({
        id: m.id, model_id: m.model_id, model_name: m.model_name, description: m.description,
        engine: m.engine, cost_per_char: m.cost_per_char, access: m.access, available: m.available,
      }));
      return { json, text: json.map((m) => human`${m.model_id.padEnd(20)} ${m.engine.padEnd(8)} ${String(m.cost_per_char).padEnd(10)} ${m.access.padEnd(8)} ${m.available ? 'available' : 'files missing'}`).join('\n') };
    });
  },
  async 'models grant'({ values }) {
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
  async migrate() {
    // Booting the data layer applies what is pending (under the database's migration lock).
    return withAdminApp(async (app) => {
      const db = app.get(tokens.database);
      const [{ n }] = await db.knex('sawt_migrations').count({ n: '*' });
      return { json: { dialect: db.dialect, migrations: Number(n) }, text: human`database (${db.dialect}) up to date: ${Number(n)} migrations applied` };
    });
  },
  backup,
  'models pull': modelsPull,
  'models verify': modelsVerify,
};
