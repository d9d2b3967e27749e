/**
 * Where a client's API key is read from: the x-api-key header, or an
 * Authorization: Bearer header (and, for the WebSocket, the x-api-key query
 * parameter first, passed as `query`). One rule for every transport.
 */
export function presentedKey(headers: Record<string, string | string[] | undefined>, query?: string | null): string | undefined {
  if (query && query.trim() !== '') return query.trim();
  const direct = headers['x-api-key'];
  if (typeof direct === 'string' && direct.trim() !== '') return direct.trim();
  const authz = headers.authorization;
  if (typeof authz === 'string') {
    const m = /^Bearer\s+(.+)$/i.exec(authz.trim());
    if (m) return m[1]!.trim();
  }
  return undefined;
}
