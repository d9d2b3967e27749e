import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const require = createRequire(import.meta.url);
const own = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../static/docs');
const pkg = (name: string) => path.dirname(require.resolve(`${name}/package.json`));

/**
 * What /docs serves: our page (index.html, docs.js, docs.css) and the renderers'
 * prebuilt browser bundles, Swagger UI (swagger-ui-dist, Apache-2.0) for the
 * OpenAPI document and the AsyncAPI React component's standalone bundle
 * (Apache-2.0) for the WebSocket protocol. A fixed list: no path from the request
 * reaches the file system.
 */
function docFiles(): Record<string, { file: string; type: string }> {
  const swagger = pkg('swagger-ui-dist');
  const asyncapi = pkg('@asyncapi/react-component');
  return {
    '/docs': { file: path.join(own, 'index.html'), type: 'text/html; charset=utf-8' },
    '/docs/docs.js': { file: path.join(own, 'docs.js'), type: 'text/javascript; charset=utf-8' },
    '/docs/docs.css': { file: path.join(own, 'docs.css'), type: 'text/css; charset=utf-8' },
    '/docs/vendor/swagger-ui-bundle.js': { file: path.join(swagger, 'swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
    '/docs/vendor/swagger-ui.css': { file: path.join(swagger, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
    '/docs/vendor/asyncapi.js': { file: path.join(asyncapi, 'browser/standalone/index.js'), type: 'text/javascript; charset=utf-8' },
    '/docs/vendor/asyncapi.css': { file: path.join(asyncapi, 'styles/default.min.css'), type: 'text/css; charset=utf-8' },
  };
}

/**
 * The page may load and fetch only from this server (the bundles' own links to
 * validators, CDNs or fonts are refused by the browser). The AsyncAPI parser
 * compiles JSON schemas at run time, hence 'unsafe-eval'.
 */
const CSP = "default-src 'self'; script-src 'self' 'unsafe-eval'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'self'; base-uri 'none'; form-action 'none'";

/** GET /docs: the API reference page (HTTP and WebSocket), static files read once and kept. */
export function registerDocs(app: FastifyInstance): void {
  const files = docFiles();
  const cache = new Map<string, Buffer>();
  for (const [url, { file, type }] of Object.entries(files)) {
    app.get(url, async (req: FastifyRequest, reply: FastifyReply) => {
      // /docs/ would resolve the page's relative links one level too deep.
      if (url === '/docs' && req.url.split('?')[0]!.endsWith('/')) return reply.redirect('../docs', 301);
      let body = cache.get(url);
      if (!body) {
        body = await readFile(file);
        cache.set(url, body);
      }
      return reply
        .header('content-security-policy', CSP)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', url === '/docs' ? 'no-cache' : 'public, max-age=3600')
        .type(type)
        .send(body);
    });
  }
}

/** Bytes of everything /docs serves (for the README and notes). */
export async function docsSize(): Promise<number> {
  let n = 0;
  for (const { file } of Object.values(docFiles())) n += (await readFile(file)).length;
  return n;
}
