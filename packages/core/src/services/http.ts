/** Routes as transports document them. */
import type { EndpointScope } from './auth.js';

export interface HttpRouteSpec {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** Path below /api/v1, e.g. '/models'. */
  path: string;
  summary: string;
  /** Endpoint scope a key needs; null = no authentication. */
  scope: EndpointScope | null;
  /** OpenAPI fragments. */
  requestBody?: Record<string, unknown>;
  parameters?: Array<Record<string, unknown>>;
  responses: Record<string, unknown>;
}
