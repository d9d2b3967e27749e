import { definePlugin, tokens } from '@sawt/core';
import { authMigrations } from './migrations.js';
import { SqlAccountStore, SqlApiKeyStore, SqlAuthenticator } from './stores.js';
import { SqlCharacterQuota } from './quota.js';

/** Accounts, API keys (stored as sha256 hashes), model grants and the per-key character quota. */
export default definePlugin({
  id: 'auth',
  provides: [tokens.accounts, tokens.apiKeys, tokens.authenticator, tokens.quota],
  deps: { db: tokens.database, scopes: tokens.scopes, clock: tokens.clock },
  configSchema: { type: 'object', additionalProperties: false, properties: {} },

  register(ctx, { db, scopes, clock }) {
    db.addMigrations(ctx.pluginId, authMigrations);
    const accounts = new SqlAccountStore(db);
    ctx.provide(tokens.accounts, accounts);
    ctx.provide(tokens.apiKeys, new SqlApiKeyStore(db, accounts, scopes.names));
    // The clock decides whether a key's expiry date has passed.
    ctx.provide(tokens.authenticator, new SqlAuthenticator(db, clock));
    ctx.provide(tokens.quota, new SqlCharacterQuota());
  },
});
