import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  errors, validateFields,
  type ErrorKindName, type FieldRules, type FieldValues, type HttpRouteSpec, type PluginRoute, type ReceivedUpload, type RouteHandler, type RouteReply, type RouteRequest, type ScopeRegistry, type WorkDir,
} from '@sawt/core';
import { receiveForm, type MultipartForm } from './multipart.js';
import { errorResponses, jsonBody, multipartBody } from './openapi.js';
import { apiRoute, type RouteDeps } from './server.js';

export interface PluginRouteDeps extends RouteDeps {
  scopes: ScopeRegistry;
  workDir: WorkDir;
  /** Default largest upload file (bytes). */
  maxUploadBytes: number;
}

/** The OpenAPI description of a plugin route: its own responses win over those added from the error table. */
export function describeRoute(route: PluginRoute): HttpRouteSpec {
  const kinds: ErrorKindName[] = [
    ...(route.body || route.upload ? (['validation'] as const) : []),
    ...(route.scope ? (['authentication', 'endpointNotAllowed', 'rateLimit'] as const) : []),
    ...(route.errors ?? []),
  ];
  const requestBody = route.upload
    ? multipartBody(route.upload.fields ?? {}, route.upload.files, route.upload.requiredFiles)
    : route.body ? jsonBody(route.body) : undefined;
  return {
    method: route.method, path: route.path, summary: route.summary, scope: route.scope,
    ...(requestBody ? { requestBody } : {}),
    ...(route.parameters ? { parameters: route.parameters } : {}),
    responses: { ...errorResponses(...new Set(kinds)), ...route.responses },
  };
}

/**
 * `route()` of the HTTP server service: a plugin's route registered like the built-in
 * ones (apiRoute: key, scope, rate limit; the server's request id and error shape),
 * its body validated against its field rules or its upload read by the one receiver.
 */
export function pluginRoutes(app: FastifyInstance, describe: (r: HttpRouteSpec) => void, deps: PluginRouteDeps) {
  return <B extends FieldRules, U extends FieldRules>(route: PluginRoute<B, U>, handler: RouteHandler<B, U>): void => {
    if (!route.path.startsWith('/') || route.path.startsWith('//')) throw new Error(`route ${route.method} ${route.path}: the path must start with one / (it lies below /api/v1)`);
    if (route.scope !== null && !deps.scopes.has(route.scope)) {
      throw new Error(`route ${route.method} ${route.path} needs scope '${route.scope}', which no configured plugin declares (declared: ${deps.scopes.names.join(', ')}); declare it in the plugin's scopes`);
    }
    if (route.body && route.upload) throw new Error(`route ${route.method} ${route.path}: a route takes a JSON body or an upload, not both`);
    const spec = describeRoute(route);
    const upload = route.upload;
    const run = async (req: FastifyRequest, reply: FastifyReply) => {
      let form: MultipartForm | null = null;
      const request: RouteRequest<B, U> = {
        id: req.id,
        auth: req.auth ?? null,
        // Without rules the body type is that of no fields, {}.
        body: route.body ? validateFields(req.body, route.body) : ({} as FieldValues<B>),
        params: (req.params ?? {}) as Record<string, string>,
        query: (req.query ?? {}) as Record<string, unknown>,
        headers: req.headers,
        raw: req.raw,
        async upload(): Promise<ReceivedUpload<U>> {
          if (!upload) throw new Error(`route ${route.method} ${route.path} declares no upload`);
          if (form) throw new Error('upload() was already called');
          form = await receiveForm(req.raw, {
            file: () => deps.workDir.file('upload', '.bin'),
            fileFields: Object.keys(upload.files),
            maxFileBytes: upload.maxFileBytes ?? deps.maxUploadBytes,
            ...(upload.messages?.notMultipart ? { notMultipart: upload.messages.notMultipart } : {}),
            ...(upload.messages?.tooLarge ? { tooLarge: upload.messages.tooLarge } : {}),
          });
          return { fields: upload.fields ? validateFields(form.fields, upload.fields, { coerce: true }) : ({} as FieldValues<U>), files: form.files };
        },
      };
      const answer: RouteReply = {
        raw: reply.raw,
        header(name, value) {
          reply.header(name, value);
          return answer;
        },
        json(body, status = 200) {
          void reply.code(status).type('application/json').send(body);
        },
        send(body, contentType, status = 200) {
          void reply.code(status).type(contentType).header('content-length', body.length).send(body);
        },
        takeOver() {
          // What fastify's hooks set on the reply (x-request-id, CORS) goes on the raw response the handler writes.
          for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
          reply.hijack();
          return reply.raw;
        },
      };
      try {
        await handler(request, answer);
      } finally {
        await (form as MultipartForm | null)?.cleanup();
      }
      // A handler that gave up on a client gone away (its response destroyed) answers nothing.
      if (!reply.sent && !reply.raw.destroyed) throw errors.internal(`route ${route.method} ${route.path} answered nothing`);
      return reply;
    };
    if (!upload) {
      apiRoute(app, describe, deps, spec, run);
      return;
    }
    describe(spec);
    // An upload is read by the handler (streamed to disk), not by fastify.
    void app.register(async (child) => {
      child.removeAllContentTypeParsers();
      child.addContentTypeParser('*', (_req, _payload, done) => done(null, undefined));
      apiRoute(child, () => {}, deps, spec, run);
    });
  };
}
