/** Service contracts: plugins implement these under the tokens of tokens.ts and reach no other plugin's code. */
export * from './runtime.js';
export * from './storage.js';
export * from './auth.js';
export * from './billing.js';
export * from './engine.js';
export * from './http.js';
export * from './cloning.js';
export * from './pronunciation.js';
export * from './webhooks.js';
