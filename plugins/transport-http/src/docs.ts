import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

const require = createRequire(import.meta.url);
const own = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../static/docs');
const pkg = (name: string) => path.dirname(require.resolve(`${name}/package.json`));

/** The page may load and fetch only from this server; the AsyncAPI parser compiles JSON schemas at run time, hence 'unsafe-eval'. */
const CSP = "default-src 'self'; script-src 'self' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'";

/** GET /docs: the API reference page and the renderers' prebuilt bundles (Swagger UI, AsyncAPI React; Apache-2.0); only the files named here. */
export function registerDocs(app: FastifyInstance): void {
  const trees = [
    { prefix: '/docs/', root: own, files: ['/index.html', '/docs.js', '/docs.css'] },
    { prefix: '/docs/vendor/swagger-ui/', root: pkg('swagger-ui-dist'), files: ['/swagger-ui-bundle.js', '/swagger-ui.css'] },
    { prefix: '/docs/vendor/asyncapi/', root: pkg('@asyncapi/react-component'), files: ['/browser/standalone/index.js', '/styles/default.min.css'] },
  ];
  for (const [i, { prefix, root, files }] of trees.entries()) {
    void app.register(fastifyStatic, {
      root, prefix, decorateReply: i === 0, index: false, cacheControl: false, etag: false, lastModified: false,
      allowedPath: (file) => files.includes(file),
      setHeaders: (res, file) => {
        res.header('content-security-policy', CSP);
        res.header('x-content-type-options', 'nosniff');
        res.header('cache-control', file.endsWith('index.html') && file.startsWith(own) ? 'no-cache' : 'public, max-age=3600');
      },
    });
  }
  app.get('/docs', (req, reply) => {
    // /docs/ would resolve the page's relative links one level too deep.
    if (req.url.split('?')[0]!.endsWith('/')) return reply.redirect('../docs', 301);
    return reply.sendFile('/index.html', own);
  });
}
