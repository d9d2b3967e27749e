// A route test's requests without a socket: fetch() over fastify's inject() (test/http/inject.js),
// each answer checked against the server's OpenAPI document as startServer checks what goes
// through its socket (injected requests never reach the Node server's 'request' listeners).
import { injectFetch } from '../http/inject.js';
import { createOpenApiChecker } from './openapi-check.js';

const MAX_BODY = 1 << 20;

/**
 * A fetch-like function for `srv` (startServer's result) that injects each request; unless
 * `openapiCheck` is false, every response that does not match the OpenAPI document fails in `t`.
 */
export function checkedInjectFetch(t, srv, { openapiCheck = true } = {}) {
  const inject = injectFetch(srv);
  if (!openapiCheck) return inject;
  let checker = null;
  const check = async () => (checker ??= createOpenApiChecker(await (await inject(`${srv.api}/openapi.json`)).json()));
  return async (url, init = {}) => {
    const res = await inject(url, init);
    const contentType = res.headers.get('content-type') ?? '';
    const body = /json/i.test(contentType) ? Buffer.from(await res.clone().arrayBuffer()) : Buffer.alloc(0);
    const { pathname, search } = new URL(url);
    const problems = (await check())({ method: init.method ?? 'GET', url: pathname + search, status: res.status, contentType, body: body.length > MAX_BODY ? null : body });
    for (const p of problems) t.fail(`response does not match the OpenAPI document: ${p}`);
    return res;
  };
}
