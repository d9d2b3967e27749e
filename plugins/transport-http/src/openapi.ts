import { ERRORS, fieldsToJsonSchema, type FieldRules, type HttpRouteSpec } from '@sawt/core';

export const API_PREFIX = '/api/v1';

const errorSchema = {
  type: 'object',
  required: ['errorCode', 'errorMessage'],
  properties: {
    errorCode: { type: 'integer', description: 'Numeric error code', enum: [...new Set(Object.values(ERRORS).map((e) => e.code))] },
    errorMessage: { type: 'string' },
  },
};

export const jsonBody = (rules: FieldRules) => ({
  required: true,
  content: { 'application/json': { schema: fieldsToJsonSchema(rules) } },
});

/** A multipart/form-data request body: the text fields of `rules` and the files (name → description) that are `required` (default: all). */
export function multipartBody(rules: FieldRules, files: Record<string, string>, required: string[] = Object.keys(files)): Record<string, unknown> {
  const schema = fieldsToJsonSchema(rules) as { properties: Record<string, unknown>; required?: string[] };
  for (const [name, description] of Object.entries(files)) schema.properties[name] = { type: 'string', format: 'binary', description };
  const all = [...(schema.required ?? []), ...required];
  if (all.length) schema.required = all;
  return { required: true, content: { 'multipart/form-data': { schema } } };
}

/** Standard error responses for a route, from the one error table. */
export function errorResponses(...kinds: Array<keyof typeof ERRORS>): Record<string, unknown> {
  const out: Record<string, { description: string; content: unknown }> = {};
  for (const k of kinds) {
    const e = ERRORS[k];
    const key = String(e.status);
    const text = `${e.type} (${e.code}): ${e.meaning}`;
    out[key] = out[key]
      ? { ...out[key]!, description: `${out[key]!.description} | ${text}` }
      : { description: text, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return out;
}

/** What any operation may answer before (or regardless of) its handler; a route's own entries win. */
function frameworkResponses(r: HttpRouteSpec): Record<string, unknown> {
  return {
    ...errorResponses('validation', 'requestTimeout', 'headersTooLarge', 'internal', 'unavailable'),
    ...(/:[A-Za-z_]+/.test(r.path) ? errorResponses('uriTooLong') : {}),
  };
}

/** The OpenAPI 3 document of the routes the plugins described, below `origin`/api/v1; a path starting with // lies at the root. */
export function buildOpenApi(routes: HttpRouteSpec[], components: Record<string, unknown>, origin: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const atRoot = r.path.startsWith('//');
    const p = (atRoot ? r.path.slice(1) : r.path).replace(/:([A-Za-z_]+)/g, '{$1}');
    paths[p] ??= atRoot ? { servers: [{ url: origin, description: 'The server root (outside /api/v1)' }] } : {};
    paths[p]![r.method.toLowerCase()] = {
      summary: r.summary,
      ...(r.scope ? { security: [{ ApiKeyAuth: [] }], 'x-sawt-scope': r.scope } : { security: [] }),
      ...(r.parameters ? { parameters: r.parameters } : {}),
      ...(r.requestBody ? { requestBody: r.requestBody } : {}),
      responses: atRoot ? r.responses : { ...frameworkResponses(r), ...r.responses },
    };
  }
  return {
    openapi: '3.0.3',
    info: {
      title: 'Sawt Arabic voice synthesis API',
      version: '1.0.0',
      license: { name: 'GPL-3.0-or-later' },
    },
    servers: [{ url: `${origin}${API_PREFIX}` }],
    paths,
    components: {
      securitySchemes: { ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: { Error: errorSchema, ...components },
    },
  };
}
