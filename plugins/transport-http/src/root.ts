import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface RootLinks {
  playground: boolean;
  metrics: boolean;
  /** The server's public origin for this request (publicUrl, else as the client reached it). */
  origin: (req: FastifyRequest) => string;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The links of GET /, each [path, what it is]. */
function links(opts: RootLinks): Array<{ rel: string; path: string; title: string }> {
  return [
    { rel: 'docs', path: '/docs', title: 'API reference (HTTP and WebSocket)' },
    ...(opts.playground ? [{ rel: 'playground', path: '/playground', title: 'Playground: speak, clone and denoise in the browser' }] : []),
    { rel: 'openapi', path: '/api/v1/openapi.json', title: 'OpenAPI 3 document (HTTP)' },
    { rel: 'asyncapi', path: '/api/v1/asyncapi.json', title: 'AsyncAPI 3 document (WebSocket)' },
    { rel: 'health', path: '/healthz', title: 'Liveness' },
    ...(opts.metrics ? [{ rel: 'metrics', path: '/metrics', title: 'Prometheus metrics' }] : []),
  ];
}

/**
 * GET /: where to go from here, instead of a 404 for whoever opens the server's address. A browser
 * (Accept: text/html) gets a small page; anything else JSON with the same links (absolute URLs).
 */
export function registerRoot(app: FastifyInstance, opts: RootLinks): void {
  app.get('/', async (req: FastifyRequest, reply: FastifyReply) => {
    const origin = opts.origin(req);
    const list = links(opts).map((l) => ({ ...l, href: `${origin}${l.path}` }));
    reply.header('cache-control', 'no-store').header('vary', 'accept');
    // Browsers name text/html; curl (*/*), fetch and API clients get JSON.
    const html = /\btext\/html\b/i.test(req.headers.accept ?? '');
    if (!html) {
      return reply.type('application/json; charset=utf-8').send({ name: 'Sawt', description: 'Arabic text-to-speech, voice cloning and denoising', links: Object.fromEntries(list.map((l) => [l.rel, { href: l.href, title: l.title }])) });
    }
    const items = list.map((l) => `<li><a href="${escape(l.path)}">${escape(l.path)}</a> — ${escape(l.title)}</li>`).join('\n');
    return reply.type('text/html; charset=utf-8').header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'").send(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sawt</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:2em auto;padding:0 1em}code{background:#f3f3f3;padding:0 .2em}</style></head>
<body><h1>Sawt (صوت)</h1>
<p>Arabic text-to-speech, voice cloning and denoising. The API lives under <code>${escape(origin)}/api/v1</code> and needs an API key
(<code>npx sawt accounts create</code>, then <code>npx sawt keys create</code>).</p>
<ul>
${items}
</ul>
</body></html>
`);
  });
}
