import { PLANS, errors, type EndpointScope, type Plan } from '@sawt/core';

export function validatePlan(plan: unknown): Plan {
  if (typeof plan !== 'string' || !(PLANS as readonly string[]).includes(plan)) {
    throw errors.validation(`plan must be one of ${PLANS.join(', ')} but received ${JSON.stringify(plan)}`);
  }
  return plan as Plan;
}

export function validateName(name: unknown): string {
  const trimmed = typeof name === 'string' ? name.trim() : '';
  if (!trimmed) throw errors.validation('name is required');
  if (trimmed.length > 200) throw errors.validation(`name must be at most 200 characters but has ${trimmed.length}`);
  return trimmed;
}

/** undefined/null = every endpoint; otherwise a non-empty subset of `scopes` (those plugins declare), deduplicated, in their order. */
export function validateEndpoints(endpoints: unknown, scopes: readonly string[]): EndpointScope[] | null {
  if (endpoints === undefined || endpoints === null) return null;
  if (!Array.isArray(endpoints)) throw errors.validation(`endpoints must be a list of ${scopes.join(', ')}`);
  const unknown = endpoints.filter((e) => !scopes.includes(e as string));
  if (unknown.length) {
    throw errors.validation(`Unknown endpoint scope${unknown.length > 1 ? 's' : ''} ${unknown.map((e) => JSON.stringify(e)).join(', ')}; allowed: ${scopes.join(', ')}`);
  }
  if (endpoints.length === 0) throw errors.validation(`endpoints must name at least one of ${scopes.join(', ')} (omit it to allow every endpoint)`);
  return scopes.filter((s) => endpoints.includes(s));
}

const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * A calendar-valid ISO 8601 date or date-time, normalised to UTC ('…Z'). A past
 * date is accepted: the key is created already expired (operators use that to
 * check their clients' handling of 40101).
 */
export function validateExpiresAt(expiresAt: unknown): string | null {
  if (expiresAt === undefined || expiresAt === null) return null;
  const m = typeof expiresAt === 'string' ? ISO_8601.exec(expiresAt.trim()) : null;
  const [year, month, day, hour, minute, second] = (m ?? []).slice(1, 7).map((v) => (v === undefined ? 0 : Number(v)));
  const daysInMonth = m ? new Date(Date.UTC(year, month, 0)).getUTCDate() : 0;
  const ms = m ? Date.parse((expiresAt as string).trim()) : NaN;
  if (!m || month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59 || Number.isNaN(ms)) {
    throw errors.validation(`expiresAt must be an ISO 8601 date or date-time (e.g. 2030-01-31T00:00:00Z) but received ${JSON.stringify(expiresAt)}`);
  }
  return new Date(ms).toISOString();
}

export function validateQuotaChars(quota: unknown): number | null {
  if (quota === undefined || quota === null) return null;
  if (typeof quota !== 'number' || !Number.isSafeInteger(quota) || quota < 0) {
    throw errors.validation(`quotaChars must be a non-negative integer but received ${JSON.stringify(quota)}`);
  }
  return quota;
}
