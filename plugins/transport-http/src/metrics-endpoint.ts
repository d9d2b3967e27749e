import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FromSchema, Metrics } from '@sawt/core';
import type { FastifyReply } from 'fastify';

export const metricsSchema = {
  type: 'object',
  additionalProperties: false,
  default: {},
  description: 'GET /metrics (Prometheus text format): on the API port, or on a port of its own (e.g. bound to a private address).',
  properties: {
    // false: no /metrics anywhere.
    enabled: { type: 'boolean', default: true },
    // null: GET /metrics on the API port; a number: on this port only (0: any free port).
    port: { type: ['integer', 'null'], minimum: 0, maximum: 65535, default: null },
    // Address of the separate metrics port (null: the API's SAWT_HOST).
    host: { type: ['string', 'null'], minLength: 1, default: null },
  },
} as const;

export type MetricsOptions = FromSchema<typeof metricsSchema>;

/**
 * GET /metrics in the Prometheus text format, on the API port or on a port of
 * its own, so that an operator can keep it off the public interface.
 */
export class MetricsEndpoint {
  private server: Server | null = null;

  constructor(private readonly metrics: Metrics, private readonly opts: MetricsOptions) {}

  get onApiPort(): boolean {
    return this.opts.enabled && this.opts.port === null;
  }

  async answer(reply: FastifyReply): Promise<FastifyReply> {
    const { contentType, body } = await this.metrics.render();
    return reply.header('cache-control', 'no-store').type(contentType).send(body);
  }

  /** Opens the separate port when configured; resolves with its address (null: none). */
  async listen(apiHost: string): Promise<string | null> {
    if (!this.opts.enabled || this.opts.port === null) return null;
    const server = createServer((req, res) => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' || path !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Only GET /metrics is served on this port\n');
        return;
      }
      this.metrics.render().then(
        ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body),
        () => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics failed\n'),
      );
    });
    this.server = server;
    const host = this.opts.host ?? apiHost;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port!, host, () => (server.off('error', reject), resolve()));
    });
    const a = server.address() as AddressInfo;
    return `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }
}
