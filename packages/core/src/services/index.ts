/**
 * Service contracts. Plugins implement these and register them under the tokens
 * in tokens.ts; nothing else in the codebase reaches into another plugin's code.
 * PostgreSQL, Redis-backed limits and further transports arrive as new plugins
 * implementing the same contracts.
 */
export * from './runtime.js';
export * from './storage.js';
export * from './auth.js';
export * from './billing.js';
export * from './engine.js';
export * from './http.js';
export * from './cloning.js';
export * from './pronunciation.js';
export * from './webhooks.js';
