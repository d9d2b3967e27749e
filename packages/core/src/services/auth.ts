/** Accounts, plans, API keys and their scopes (the auth plugin). */
import type { Knex } from 'knex';
import type { SawtError } from '../errors.js';

export const PLANS = ['free', 'basic', 'starter', 'growth', 'scale', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** A scope name, declared by a plugin in its manifest (`scopes`); see ScopeRegistry. */
export type EndpointScope = string;

export interface Account {
  id: string;
  name: string;
  plan: Plan;
  createdAt: string;
}

export interface AccountStore {
  /** Inside `trx` when given (e.g. the wallet opening the account with its balance). */
  create(input: { name: string; plan: Plan }, trx?: Knex): Promise<Account>;
  get(id: string): Promise<Account | null>;
  list(): Promise<Account[]>;
  grantModel(accountId: string, modelId: string): Promise<void>;
  modelGrants(accountId: string): Promise<string[]>;
  hasModelGrant(accountId: string, modelId: string): Promise<boolean>;
}

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  /** First characters of the secret, safe to show (e.g. "sawt_ab12cd"). */
  prefix: string;
  /** null = every endpoint. */
  endpoints: EndpointScope[] | null;
  expiresAt: string | null;
  quotaChars: number | null;
  usedChars: number;
  revokedAt: string | null;
  createdAt: string;
}

export interface CreatedApiKey extends ApiKeyRecord {
  /** The secret; returned only at creation, stored only as a hash. */
  key: string;
}

export interface AuthContext {
  account: Account;
  key: ApiKeyRecord;
}

export interface ApiKeyStore {
  create(input: { accountId: string; endpoints?: EndpointScope[] | null; expiresAt?: string | null; quotaChars?: number | null }): Promise<CreatedApiKey>;
  get(id: string): Promise<ApiKeyRecord | null>;
  list(accountId?: string): Promise<ApiKeyRecord[]>;
  revoke(id: string): Promise<ApiKeyRecord>;
  /** Removes the key; later use of its secret fails with 40101. */
  delete(id: string): Promise<void>;
}

export interface Authenticator {
  /** Resolves a presented secret (undefined = none given). Throws SawtError 40101. */
  authenticate(secret: string | undefined): Promise<AuthContext>;
  /** Throws SawtError 40302 when the key may not call `scope`. */
  authorize(ctx: AuthContext, scope: EndpointScope): void;
  /**
   * Of the given key ids, those no longer valid (revoked, deleted or expired, in the
   * shared database: whichever node or CLI changed them), each with the 40101 error
   * a new request with it would get. Long-lived connections check their key with it.
   */
  invalidKeys?(keyIds: string[]): Promise<Map<string, SawtError>>;
}
