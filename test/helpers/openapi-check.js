// Checks every HTTP response a test server sends against the server's own OpenAPI
// document: the status must be documented for the operation (an unknown route must
// be a 404 Error), the content type must be one the operation declares, and a JSON
// body must validate against the declared schema. Recorded at the Node level
// (before fastify), so hijacked audio responses and router refusals count too.
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

/** Paths the server answers that are not part of the API the document describes. */
const OUTSIDE_API = new Set(['/api/v1/openapi.json', '/api/v1/asyncapi.json', '/metrics']);
const OUTSIDE_API_PREFIX = '/docs';
const MAX_BODY = 1 << 20;

const norm = (ct) => String(ct ?? '').toLowerCase().replace(/\s+/g, '');
const base = (ct) => norm(ct).split(';')[0];

export function createOpenApiChecker(doc) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  // Server URLs are absolute; requests are matched on their path (a path may have servers of its own).
  const pathOf = (url) => new URL(url, 'http://server.invalid').pathname.replace(/\/$/, '');
  const prefix = pathOf(doc.servers?.[0]?.url ?? '');
  const operations = Object.entries(doc.paths).map(([template, ops]) => ({
    template,
    regex: new RegExp(`^${ops.servers ? pathOf(ops.servers[0].url) : prefix}${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`),
    ops,
  }));
  const compiled = new Map();
  const validatorFor = (key, schema) => {
    if (!compiled.has(key)) compiled.set(key, ajv.compile({ ...schema, components: doc.components }));
    return compiled.get(key);
  };

  /** Problems with one response ([] when it conforms). */
  return function check({ method, url, status, contentType, body }) {
    const path = url.split('?')[0];
    if (OUTSIDE_API.has(path.replace(/\/$/, '')) || ['/playground', OUTSIDE_API_PREFIX].some((p) => path === p || path.startsWith(`${p}/`))) return [];
    // A CORS preflight answer (transport-http's cors option) belongs to HTTP, not to an operation.
    if (method === 'OPTIONS' && status === 204 && !body?.length) return [];
    const m = method === 'HEAD' ? 'get' : method.toLowerCase();
    const entry = operations.find((o) => o.regex.test(path));
    const op = entry?.ops[m];
    let responses;
    let where;
    if (op) {
      responses = op.responses;
      where = `${method} ${entry.template}`;
    } else {
      // No such operation: the only documented answer is the Error object with 404 (or what the router refuses first).
      responses = { 404: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } };
      for (const s of [400, 414]) responses[s] = responses[404];
      where = `${method} (no documented operation)`;
    }
    const problems = [];
    const response = responses[String(status)] ?? responses.default;
    if (!response) return [`${where}: status ${status} is not documented (documented: ${Object.keys(responses).join(', ')})`];
    const content = response.content ?? {};
    const types = Object.keys(content);
    if (types.length === 0) {
      if (body !== null && body.length > 0) problems.push(`${where} ${status}: a body was sent but none is documented`);
      return problems;
    }
    const declared = types.find((k) => norm(k) === norm(contentType)) ?? types.find((k) => !k.includes(';') && base(k) === base(contentType));
    if (!declared) return [`${where} ${status}: content type ${JSON.stringify(contentType)} is not one of ${types.join(', ')}`];
    const schema = content[declared]?.schema;
    if (schema && base(declared) === 'application/json') {
      if (body === null) return [`${where} ${status}: JSON body too large to check`];
      let parsed;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch {
        return [`${where} ${status}: body is not JSON: ${body.toString('utf8').slice(0, 200)}`];
      }
      const validate = validatorFor(`${where} ${status} ${declared}`, schema);
      if (!validate(parsed)) problems.push(`${where} ${status}: body does not match the schema: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(parsed).slice(0, 300)}`);
    }
    return problems;
  };
}

/**
 * Records every response of `server` (a Node http.Server) and hands it to
 * `onResponse({ method, url, status, contentType, body })` when it finishes; body is
 * null for bodies over 1 MiB (audio is not kept: only JSON is checked).
 */
export function recordResponses(server, onResponse) {
  server.prependListener('request', (req, res) => {
    const chunks = [];
    let size = 0;
    const keep = (chunk, encoding) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8');
      size += b.length;
      if (size <= MAX_BODY && /json/i.test(String(res.__contentType ?? res.getHeader('content-type') ?? ''))) chunks.push(b);
    };
    const write = res.write;
    const end = res.end;
    res.write = function (chunk, encoding, cb) {
      keep(chunk, encoding);
      return write.call(this, chunk, encoding, cb);
    };
    res.end = function (chunk, encoding, cb) {
      keep(chunk, encoding);
      return end.call(this, chunk, encoding, cb);
    };
    // writeHead with a headers object sets them without setHeader: read them from there too.
    const writeHead = res.writeHead;
    res.writeHead = function (status, ...rest) {
      const headers = rest.find((x) => x && typeof x === 'object');
      if (headers) for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === 'content-type') res.__contentType = v;
      return writeHead.call(this, status, ...rest);
    };
    res.once('finish', () => {
      if (!res.headersSent) return;
      const contentType = res.__contentType ?? res.getHeader('content-type') ?? '';
      onResponse({ method: req.method, url: req.url, status: res.statusCode, contentType: String(contentType), body: size > MAX_BODY ? null : Buffer.concat(chunks) });
    });
  });
}
