// fetch() over fastify's inject(): a route test's requests reach the routes without a socket (no
// connection, no keep-alive to race), and come back as a WHATWG Response.
import { tokens } from '@sawt/core';

/** A fetch-like function for the server `srv` (test/helpers/server.js) that injects each request. */
export function injectFetch(srv) {
  const app = srv.app.get(tokens.httpServer).app;
  return async (url, init = {}) => {
    const { host, pathname, search } = new URL(url);
    const res = await app.inject({ method: init.method ?? 'GET', url: pathname + search, headers: { host, ...init.headers }, payload: init.body });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) for (const x of [v].flat()) if (x !== undefined) headers.append(k, String(x));
    return new Response([101, 204, 205, 304].includes(res.statusCode) ? null : res.rawPayload, { status: res.statusCode, headers });
  };
}
