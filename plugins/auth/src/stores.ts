import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { SawtError, errors, systemClock, type Account, type Clock, type AccountStore, type ApiKeyRecord, type ApiKeyStore, type AuthContext, type Authenticator, type CreatedApiKey, type Database, type EndpointScope, type Plan } from '@sawt/core';
import { DISPLAY_PREFIX_LENGTH, SECRET_PATTERN, generateSecret, hashSecret } from './secrets.js';
import { validateEndpoints, validateExpiresAt, validateName, validatePlan, validateQuotaChars } from './validation.js';

interface AccountRow { id: string; name: string; plan: string; created_at: string }

/** bigints (quota_chars, used_chars): PostgreSQL returns them as strings. */
interface ApiKeyRow {
  id: string; account_id: string; key_hash: string; prefix: string; endpoints: string | null; expires_at: string | null;
  quota_chars: number | string | null; used_chars: number | string; revoked_at: string | null; deleted_at: string | null; created_at: string;
}

const toAccount = (r: AccountRow): Account => ({ id: r.id, name: r.name, plan: r.plan as Plan, createdAt: r.created_at });

const toKey = (r: ApiKeyRow): ApiKeyRecord => ({
  id: r.id, accountId: r.account_id, prefix: r.prefix, endpoints: r.endpoints === null ? null : (JSON.parse(r.endpoints) as EndpointScope[]), expiresAt: r.expires_at,
  quotaChars: r.quota_chars === null ? null : Number(r.quota_chars), usedChars: Number(r.used_chars), revokedAt: r.revoked_at, createdAt: r.created_at,
});

const keyNotFound = (id: string) => new SawtError('notFound', `API key '${id}' not found`);

export class SqlAccountStore implements AccountStore {
  constructor(private readonly db: Database) {}

  async create(input: { name: string; plan: Plan }, trx?: Knex): Promise<Account> {
    const row: AccountRow = { id: randomUUID(), name: validateName(input?.name), plan: validatePlan(input?.plan), created_at: new Date().toISOString() };
    await (trx ?? this.db.knex)('accounts').insert(row);
    return toAccount(row);
  }

  async get(id: string): Promise<Account | null> {
    const row = await this.db.knex<AccountRow>('accounts').where({ id: String(id) }).first();
    return row ? toAccount(row) : null;
  }

  async list(): Promise<Account[]> {
    return (await this.db.knex<AccountRow>('accounts').orderBy([{ column: 'created_at' }, { column: 'id' }])).map(toAccount);
  }

  async grantModel(accountId: string, modelId: string): Promise<void> {
    if (typeof modelId !== 'string' || !modelId.trim()) throw errors.validation('model id is required');
    await this.require(accountId);
    await this.db.knex('model_grants').insert({ account_id: accountId, model_id: modelId.trim(), created_at: new Date().toISOString() }).onConflict(['account_id', 'model_id']).ignore();
  }

  async modelGrants(accountId: string): Promise<string[]> {
    const rows = await this.db.knex('model_grants').where({ account_id: accountId }).orderBy('model_id').select('model_id');
    return rows.map((r: { model_id: string }) => r.model_id);
  }

  async hasModelGrant(accountId: string, modelId: string): Promise<boolean> {
    return !!(await this.db.knex('model_grants').where({ account_id: accountId, model_id: modelId }).first('model_id'));
  }

  async require(id: string): Promise<Account> {
    const account = await this.get(id);
    if (!account) throw new SawtError('notFound', `Account '${id}' not found`);
    return account;
  }
}

export class SqlApiKeyStore implements ApiKeyStore {
  /** `scopes`: the scope names keys may be restricted to (those the configured plugins declare). */
  constructor(private readonly db: Database, private readonly accounts: SqlAccountStore, private readonly scopes: readonly string[]) {}

  async create(input: { accountId: string; endpoints?: EndpointScope[] | null; expiresAt?: string | null; quotaChars?: number | null }): Promise<CreatedApiKey> {
    const endpoints = validateEndpoints(input?.endpoints, this.scopes);
    const expiresAt = validateExpiresAt(input?.expiresAt);
    const quotaChars = validateQuotaChars(input?.quotaChars);
    if (typeof input?.accountId !== 'string' || !input.accountId) throw errors.validation('account id is required');
    await this.accounts.require(input.accountId);
    const key = generateSecret();
    const row: ApiKeyRow = {
      id: randomUUID(), account_id: input.accountId, key_hash: hashSecret(key), prefix: key.slice(0, DISPLAY_PREFIX_LENGTH), endpoints: endpoints === null ? null : JSON.stringify(endpoints),
      expires_at: expiresAt, quota_chars: quotaChars, used_chars: 0, revoked_at: null, deleted_at: null, created_at: new Date().toISOString(),
    };
    await this.db.knex('api_keys').insert(row);
    return { ...toKey(row), key };
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    const row = await this.live().where({ id: String(id) }).first();
    return row ? toKey(row) : null;
  }

  async list(accountId?: string): Promise<ApiKeyRecord[]> {
    const q = this.live().orderBy([{ column: 'created_at' }, { column: 'id' }]);
    if (accountId !== undefined) q.where({ account_id: accountId });
    return (await q).map(toKey);
  }

  async revoke(id: string): Promise<ApiKeyRecord> {
    // Only the first revocation sets the time; revoking again returns the record unchanged.
    await this.live().where({ id: String(id) }).whereNull('revoked_at').update({ revoked_at: new Date().toISOString() });
    const key = await this.get(id);
    if (!key) throw keyNotFound(id);
    return key;
  }

  async delete(id: string): Promise<void> {
    const n = await this.live().where({ id: String(id) }).update({ deleted_at: new Date().toISOString() });
    if (n === 0) throw keyNotFound(id);
  }

  private live() {
    return this.db.knex<ApiKeyRow>('api_keys').whereNull('deleted_at');
  }
}

const MISSING_KEY = 'Missing API key: provide it in the x-api-key header (or as Authorization: Bearer <key>)';

export class SqlAuthenticator implements Authenticator {
  constructor(private readonly db: Database, private readonly clock: Clock = systemClock) {}

  async authenticate(secret: string | undefined): Promise<AuthContext> {
    if (secret === undefined || secret === null || (typeof secret === 'string' && secret.trim() === '')) throw errors.authentication(MISSING_KEY);
    if (typeof secret !== 'string' || !SECRET_PATTERN.test(secret.trim())) {
      throw errors.authentication('Malformed API key: expected a key of the form sawt_ followed by 40 letters and digits');
    }
    // Lookup by the secret's sha256: the stored value reveals nothing, and an index equality on the hash leaks nothing useful through timing.
    const row = await this.db.reader('api_keys').join('accounts', 'accounts.id', 'api_keys.account_id').where('api_keys.key_hash', hashSecret(secret.trim()))
      .first<(ApiKeyRow & { account_name: string; account_plan: string; account_created_at: string }) | undefined>('api_keys.*', 'accounts.name as account_name', 'accounts.plan as account_plan', 'accounts.created_at as account_created_at');
    if (!row) throw errors.authentication('Invalid API key');
    const invalid = this.whyInvalid(row);
    if (invalid) throw invalid;
    return { account: toAccount({ id: row.account_id, name: row.account_name, plan: row.account_plan, created_at: row.account_created_at }), key: toKey(row) };
  }

  async invalidKeys(keyIds: string[]): Promise<Map<string, SawtError>> {
    const out = new Map<string, SawtError>();
    if (keyIds.length === 0) return out;
    const rows = (await this.db.reader<ApiKeyRow>('api_keys').whereIn('id', keyIds).select('id', 'revoked_at', 'deleted_at', 'expires_at')) as ApiKeyRow[];
    const found = new Map(rows.map((r) => [r.id, r]));
    for (const id of keyIds) {
      const row = found.get(id);
      const invalid = row ? this.whyInvalid(row) : errors.keyDeleted();
      if (invalid) out.set(id, invalid);
    }
    return out;
  }

  private whyInvalid(row: Pick<ApiKeyRow, 'deleted_at' | 'revoked_at' | 'expires_at'>): SawtError | null {
    if (row.deleted_at) return errors.keyDeleted();
    if (row.revoked_at) return errors.authentication('Invalid API key: this key has been revoked');
    if (row.expires_at && Date.parse(row.expires_at) <= this.clock.now()) return errors.authentication(`Invalid API key: this key expired at ${row.expires_at}`);
    return null;
  }

  authorize(ctx: AuthContext, scope: EndpointScope): void {
    const allowed = ctx.key.endpoints;
    if (allowed && !allowed.includes(scope)) throw errors.endpointNotAllowed(scope);
  }
}
