/**
 * Pronunciation dictionaries owned by an account (issue 32): POST/GET/PATCH/DELETE
 * /pronunciation-dictionaries, JSON rules or a PLS 1.0 file, versions, limits; and the service
 * requests resolve their `pronunciation_dictionary_locators` with (tokens.pronunciationDictionaries).
 */
import type { IncomingMessage } from 'node:http';
import { readFile } from 'node:fs/promises';
import {
  definePlugin, ERRORS, errors, tokens,
  type ErrorKindName, type FromSchema, type HttpServerService, type PluginRoute, type PronunciationRule, type RouteRequest,
} from '@sawt/core';
import { dictionaryMigrations } from './migrations.js';
import { parsePls } from './pls.js';
import { checkName, checkRules, checkUnique, RULE_FIELD_LIMITS, type DictionaryLimits } from './rules.js';
import { dictionaryNotFound, DictionaryStore, type DictionaryVersion } from './store.js';

export { DictionaryStore } from './store.js';
export { parsePls } from './pls.js';
export { dictionaryMigrations } from './migrations.js';

const configSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    maxRulesPerDictionary: { type: 'integer', minimum: 1, default: 1000 },
    maxDictionariesPerAccount: { type: 'integer', minimum: 1, default: 100 },
    /** Largest PLS file (bytes). */
    maxPlsBytes: { type: 'integer', minimum: 1024, default: 1_048_576 },
  },
} as const;

export type DictionaryOptions = FromSchema<typeof configSchema>;

export const DICTIONARY_SCOPE = 'dictionaries';
/** A JSON body's cap: 1,000 rules of the longest fields, in UTF-8, with room for the JSON around them. */
const MAX_JSON_BYTES = 4 * 1_048_576;

const ruleSchema = {
  type: 'object',
  required: ['string_to_replace', 'type'],
  properties: {
    string_to_replace: { type: 'string', maxLength: RULE_FIELD_LIMITS.stringToReplace, description: 'The word or words to match (whole words; diacritic-insensitive unless it carries diacritics; Arabic proclitics و ف ب ك ل ال allowed before it; Latin case-insensitive)' },
    type: { type: 'string', enum: ['alias', 'phoneme'] },
    alias: { type: 'string', maxLength: RULE_FIELD_LIMITS.alias, description: 'type alias: the text read (and billed) instead' },
    phoneme: { type: 'string', maxLength: RULE_FIELD_LIMITS.phoneme, description: 'type phoneme: the pronunciation in `alphabet`' },
    alphabet: { type: 'string', enum: ['ipa', 'x-sawt'], description: 'type phoneme: ipa, or x-sawt (the [[…]] notation of the README)' },
  },
};
const dictionarySchema = {
  type: 'object',
  required: ['id', 'name', 'version_id', 'rules'],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    version_id: { type: 'string', description: 'This version (requests name it in a locator to keep using it)' },
    version_number: { type: 'integer', description: '1 as created, +1 per PATCH' },
    latest_version_id: { type: 'string', description: 'The version a locator without version_id uses' },
    rules: { type: 'array', items: ruleSchema },
  },
};
const summarySchema = {
  type: 'object',
  required: ['id', 'name', 'version_id', 'rule_count', 'created_at', 'updated_at'],
  properties: { id: { type: 'string' }, name: { type: 'string' }, version_id: { type: 'string' }, rule_count: { type: 'integer' }, created_at: { type: 'string', format: 'date-time' }, updated_at: { type: 'string', format: 'date-time' } },
};
const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: 'A dictionary id returned by POST /pronunciation-dictionaries' };
const json = (schema: unknown) => ({ 'application/json': { schema } });
const errorRef = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };

/** OpenAPI error responses of the table's kinds (as transport-http writes them for declared routes). */
function errorResponses(kinds: ErrorKindName[]): Record<string, unknown> {
  const out: Record<string, { description: string; content: unknown }> = {};
  for (const k of kinds) {
    const e = ERRORS[k];
    const text = `${e.type} (${e.code}): ${e.meaning}`;
    const prior = out[String(e.status)];
    out[String(e.status)] = prior ? { ...prior, description: `${prior.description} | ${text}` } : { description: text, content: errorRef };
  }
  return out;
}

/** Reads a JSON body that the route left unread (routes taking JSON or a file read their own body). */
function readJson(raw: IncomingMessage, maxBytes: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    raw.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= maxBytes) chunks.push(c);
    });
    raw.on('error', reject);
    raw.on('end', () => {
      if (size > maxBytes) return reject(errors.validation(`The JSON body is larger than ${maxBytes} bytes`));
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(JSON.parse(text));
      } catch {
        reject(errors.validation(text.trim() === '' ? 'Body cannot be empty when content-type is set to \'application/json\'' : 'Body is not valid JSON'));
      }
    });
  });
}

const isJson = (req: RouteRequest) => /^application\/(?:[\w.+-]*\+)?json/iu.test(String(req.headers['content-type'] ?? ''));

function asObject(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw errors.validation('Request body must be a JSON object');
  return body as Record<string, unknown>;
}

const shown = (d: DictionaryVersion) => ({ id: d.id, name: d.name, version_id: d.version_id, version_number: d.version_number, latest_version_id: d.latest_version_id, rules: d.rules });

export default definePlugin({
  id: 'dictionaries',
  scopes: [{ name: DICTIONARY_SCOPE, description: 'POST, GET, PATCH and DELETE /pronunciation-dictionaries: the account\'s pronunciation dictionaries' }],
  provides: [tokens.pronunciationDictionaries],
  deps: { db: tokens.database },
  // Absent where only the data layer boots (admin commands skip transports): the store still serves.
  // The synthesizer gets the store here (the engine and transport-http register before this
  // plugin, which serves routes on HTTP): requests' locators resolve in its prepare().
  optionalDeps: { http: tokens.httpServer, synthesizer: tokens.synthesizer },
  configSchema,

  register(ctx, { db, http, synthesizer }) {
    db.addMigrations(ctx.pluginId, dictionaryMigrations);
    const limits: DictionaryLimits = { rulesPerDictionary: ctx.options.maxRulesPerDictionary, dictionariesPerAccount: ctx.options.maxDictionariesPerAccount, plsBytes: ctx.options.maxPlsBytes };
    const store = new DictionaryStore(db, limits);
    ctx.provide(tokens.pronunciationDictionaries, store);
    synthesizer?.usePronunciationDictionaries?.(store);
    if (http) registerRoutes(http, store, limits);
  },
});

function registerRoutes(http: HttpServerService, store: DictionaryStore, limits: DictionaryLimits): void {
  const plsFile = `A W3C PLS 1.0 lexicon (at most ${limits.plsBytes} bytes): each lexeme's graphemes with its first <alias> or <phoneme> (alphabet ipa or x-sawt)`;
  const upload = {
    files: { file: plsFile },
    requiredFiles: [] as string[],
    maxFileBytes: limits.plsBytes,
    messages: { tooLarge: (_field: string, max: number) => `The PLS file is larger than the limit of ${max} bytes` },
  };
  const routeErrors: ErrorKindName[] = ['validation', 'authentication', 'endpointNotAllowed', 'notFound', 'rateLimit', 'internal'];

  /** A route that takes JSON or a PLS upload: declared as an upload (so its body is left to it), documented with both. */
  const jsonOrPls = <const U extends Record<string, { type: 'string'; required?: boolean; maxLength?: number; description?: string }>>(
    route: Omit<PluginRoute, 'upload' | 'body'> & { fields: U; jsonSchema: Record<string, unknown> },
    handler: (req: RouteRequest<Record<never, never>, U>) => Promise<{ status: number; body: unknown }>,
  ) => {
    const { fields, jsonSchema, ...rest } = route;
    http.route({ ...rest, upload: { ...upload, fields } }, async (req, reply) => {
      const { status, body } = await handler(req);
      reply.json(body, status);
    });
    // The route contract's field rules have no arrays: the JSON form (rules) is documented here,
    // beside the multipart one, and this description replaces the one route() gave.
    const multipart = { type: 'object', properties: { ...Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, { type: 'string', ...(f.description && { description: f.description }) }])), file: { type: 'string', format: 'binary', description: plsFile } } };
    http.describe({
      method: rest.method, path: rest.path, summary: rest.summary, scope: rest.scope,
      ...(rest.parameters && { parameters: rest.parameters }),
      requestBody: { required: true, content: { 'application/json': { schema: jsonSchema }, 'multipart/form-data': { schema: multipart } } },
      responses: { ...errorResponses(routeErrors), ...rest.responses },
    });
  };

  jsonOrPls({
    method: 'POST', path: '/pronunciation-dictionaries', scope: DICTIONARY_SCOPE,
    summary: `Create a pronunciation dictionary from JSON rules or a PLS 1.0 file (multipart \`file\` and \`name\`); at most ${limits.rulesPerDictionary} rules, ${limits.dictionariesPerAccount} dictionaries per account`,
    fields: { name: { type: 'string', maxLength: 200, description: 'The dictionary\'s name (with a PLS file)' } },
    jsonSchema: { type: 'object', required: ['name', 'rules'], properties: { name: { type: 'string', maxLength: 200 }, rules: { type: 'array', maxItems: limits.rulesPerDictionary, items: ruleSchema } } },
    responses: { 201: { description: 'The dictionary, at its first version', content: json(dictionarySchema) } },
    errors: routeErrors,
  }, async (req) => {
    let name: string;
    let rules: PronunciationRule[];
    if (isJson(req)) {
      const body = asObject(await readJson(req.raw, MAX_JSON_BYTES));
      name = checkName(body.name);
      rules = checkRules(body.rules, 'rules');
    } else {
      const form = await req.upload();
      const file = form.files.file;
      if (!file) throw errors.validation('file is required: a PLS 1.0 lexicon (or send JSON {name, rules})');
      name = checkName(form.fields.name);
      rules = checkUnique(parsePls(await readFile(file.path, 'utf8')), 'PLS file');
    }
    return { status: 201, body: shown(await store.create(req.auth!.account.id, name, rules)) };
  });

  http.route({
    method: 'GET', path: '/pronunciation-dictionaries', scope: DICTIONARY_SCOPE,
    summary: 'The account\'s pronunciation dictionaries (each at its latest version), oldest first',
    responses: { 200: { description: 'The dictionaries', content: json({ type: 'array', items: summarySchema }) } },
    errors: ['internal'],
  }, async (req, reply) => {
    reply.json(await store.list(req.auth!.account.id));
  });

  http.route({
    method: 'GET', path: '/pronunciation-dictionaries/:id', scope: DICTIONARY_SCOPE,
    summary: 'One of the account\'s pronunciation dictionaries with its rules, at its latest version or at ?version_id=',
    parameters: [idParameter, { name: 'version_id', in: 'query', required: false, schema: { type: 'string' }, description: 'An earlier version (default: the latest)' }],
    responses: { 200: { description: 'The dictionary at that version', content: json(dictionarySchema) } },
    errors: ['notFound', 'internal'],
  }, async (req, reply) => {
    const versionId = typeof req.query.version_id === 'string' && req.query.version_id !== '' ? req.query.version_id : undefined;
    reply.json(shown(await store.get(req.auth!.account.id, req.params.id!, versionId)));
  });

  jsonOrPls({
    method: 'PATCH', path: '/pronunciation-dictionaries/:id', scope: DICTIONARY_SCOPE,
    summary: 'Change a pronunciation dictionary: add rules (replacing those for the same strings), remove rules by string, rename; makes a new version (earlier ones stay usable by version_id). A PLS file (multipart `file`) adds its lexemes',
    parameters: [idParameter],
    fields: { name: { type: 'string', maxLength: 200, description: 'A new name' } },
    jsonSchema: {
      type: 'object',
      properties: {
        add_rules: { type: 'array', items: ruleSchema },
        remove_rules: { type: 'array', items: { type: 'string' }, description: 'string_to_replace of rules to remove' },
        name: { type: 'string', maxLength: 200 },
      },
    },
    responses: { 200: { description: 'The dictionary at its new version', content: json(dictionarySchema) } },
    errors: routeErrors,
  }, async (req) => {
    const accountId = req.auth!.account.id;
    const id = req.params.id!;
    let add: PronunciationRule[] = [];
    let remove: string[] = [];
    let name: string | undefined;
    if (isJson(req)) {
      const body = asObject(await readJson(req.raw, MAX_JSON_BYTES));
      if (body.add_rules !== undefined) add = checkRules(body.add_rules, 'add_rules');
      if (body.remove_rules !== undefined) {
        if (!Array.isArray(body.remove_rules) || body.remove_rules.some((s) => typeof s !== 'string')) throw errors.validation('remove_rules must be an array of strings (string_to_replace of rules)');
        remove = body.remove_rules as string[];
      }
      if (body.name !== undefined) name = checkName(body.name);
    } else {
      const form = await req.upload();
      if (form.files.file) add = checkUnique(parsePls(await readFile(form.files.file.path, 'utf8')), 'PLS file');
      if (form.fields.name !== undefined) name = checkName(form.fields.name);
    }
    if (!add.length && !remove.length && name === undefined) {
      // Not found wins over an empty change, so a foreign id answers as an unknown one.
      await store.get(accountId, id);
      throw errors.validation('Nothing to change: give add_rules, remove_rules or name (or a PLS file)');
    }
    return { status: 200, body: shown(await store.patch(accountId, id, { add, remove, ...(name !== undefined && { name }) })) };
  });

  http.route({
    method: 'DELETE', path: '/pronunciation-dictionaries/:id', scope: DICTIONARY_SCOPE,
    summary: 'Delete a pronunciation dictionary and all its versions; requests naming it get 404 from then on',
    parameters: [idParameter],
    responses: { 200: { description: 'Deleted', content: json({ type: 'object', required: ['id', 'deleted'], properties: { id: { type: 'string' }, deleted: { type: 'boolean', enum: [true] } } }) } },
    errors: ['notFound', 'internal'],
  }, async (req, reply) => {
    if (!(await store.delete(req.auth!.account.id, req.params.id!))) throw dictionaryNotFound(req.params.id!);
    reply.json({ id: req.params.id, deleted: true });
  });
}
