import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.json': 'application/json', '.map': 'application/json',
};

/** Every file under dir (recursively) as relative path → bytes, read once at boot. */
function readTree(dir: string, only: (name: string) => boolean): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (rel: string) => {
    for (const name of readdirSync(path.join(dir, rel))) {
      const r = rel ? `${rel}/${name}` : name;
      if (statSync(path.join(dir, r)).isDirectory()) walk(r);
      else if (only(name)) out.set(r, readFileSync(path.join(dir, r)));
    }
  };
  walk('');
  return out;
}

/**
 * GET /playground: the web playground and @sawt/client's built modules (imported as they are), held in
 * memory. Only the files found at boot are served, so no path reaches the disk.
 */
export function registerPlayground(app: FastifyInstance): void {
  const files = readTree(path.join(path.dirname(fileURLToPath(import.meta.url)), '../playground'), (n) => path.extname(n) in TYPES);
  const clientEntry = createRequire(import.meta.url).resolve('@sawt/client');
  for (const [rel, bytes] of readTree(path.dirname(clientEntry), (n) => n.endsWith('.js'))) files.set(`client/${rel}`, bytes);
  // The client imports @sawt/protocol by name: index.html's import map points the page there.
  const protocolDir = path.dirname(createRequire(clientEntry).resolve('@sawt/protocol'));
  for (const [rel, bytes] of readTree(protocolDir, (n) => n.endsWith('.js'))) files.set(`protocol/${rel}`, bytes);
  const serve = async (req: FastifyRequest, reply: FastifyReply) => {
    const rel = (req.params as { '*'?: string })['*'] || 'index.html';
    const body = files.get(rel);
    if (!body) return reply.callNotFound();
    return reply.type(TYPES[path.extname(rel)] ?? 'application/octet-stream').header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').send(body);
  };
  // index.html has <base href="/playground/">, so /playground (no slash; the router ignores trailing slashes) works too.
  app.get('/playground', serve);
  app.get('/playground/*', serve);
}
