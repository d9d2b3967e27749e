import { errors } from './errors.js';

/**
 * Request field rules: one declaration per field, used both to validate a request
 * (with the messages clients see) and to generate its JSON Schema for OpenAPI, so
 * the documentation cannot drift from what the server enforces.
 */
export type FieldRule =
  | {
      type: 'string'; required?: boolean; description?: string; enum?: readonly string[]; minLength?: number; maxLength?: number; message?: string; textRule?: boolean;
      /** A regular expression (Unicode) the whole value must match; `message` says what was expected. */
      pattern?: string;
      /** 'http-url': an absolute http or https URL. */
      format?: 'http-url';
    }
  | { type: 'number'; required?: boolean; description?: string; minimum: number; maximum: number; default?: number; message?: string }
  | { type: 'boolean'; required?: boolean; description?: string; default?: boolean; message?: string }
  | { type: 'object'; required?: boolean; description?: string; fields: FieldRules; message?: string };

export type FieldRules = Record<string, FieldRule>;

/**
 * The values validateFields gives for `R` (rules declared with `defineFields`, so that their
 * literal types are kept): a string (one of `enum` when given), a number, a boolean or a nested
 * object; present when `required` or given a `default`, optional otherwise.
 */
export type FieldValues<R> = Expand<{ -readonly [K in PresentField<R>]: FieldValue<R[K]> } & { -readonly [K in Exclude<keyof R, PresentField<R>>]?: FieldValue<R[K]> }>;

type FieldValue<F> =
  F extends { type: 'string'; enum: readonly (infer E)[] } ? E
    : F extends { type: 'string' } ? string
      : F extends { type: 'number' } ? number
        : F extends { type: 'boolean' } ? boolean
          : F extends { type: 'object'; fields: infer R } ? FieldValues<R>
            : unknown;

type PresentField<R> = { [K in keyof R]: R[K] extends { required: true } | { default: number | boolean } ? K : never }[keyof R];

type Expand<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;

/** Field rules with their literal types kept, for `FieldValues` (and validateFields's result). */
export function defineFields<const R extends FieldRules>(rules: R): R {
  return rules;
}

import { MIN_CHARS, TEXT_TOO_SHORT_MESSAGE, meetsTextMinimum } from './text-rules.js';

/** The message for a field that is missing or wrong, in the wording of the interface. */
export function fieldMessage(name: string, rule: FieldRule): string {
  if (rule.message) return rule.message;
  switch (rule.type) {
    case 'number':
      return `${name} must be a number between ${rule.minimum} and ${rule.maximum}`;
    case 'boolean':
      return `${name} must be a boolean`;
    case 'object':
      return `${name} must be an object`;
    case 'string':
      if (rule.enum) return `${name} must be one of ${rule.enum.join(', ')}`;
      if (rule.format === 'http-url') return `${name} must be an http or https URL`;
      return `${name} is required`;
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Validates and normalizes `input` against `rules`. Numbers may arrive as strings
 * (multipart forms) when `coerce` is set. Throws a 40001 SawtError on the first
 * problem, in declaration order. Unknown fields are ignored.
 */
export function validateFields<R extends FieldRules>(input: unknown, rules: R, opts: { coerce?: boolean; prefix?: string } = {}): FieldValues<R> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw errors.validation(opts.prefix ? `${opts.prefix} must be an object` : 'Request body must be a JSON object');
  }
  const src = input as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [name, rule] of Object.entries(rules)) {
    const label = opts.prefix ? `${opts.prefix}.${name}` : name;
    let value = src[name];
    // A blank string counts as absent (an empty form field): required → missing, optional → not given.
    if (value === undefined || value === null || (rule.type === 'string' && typeof value === 'string' && value.trim() === '')) {
      if (rule.required) {
        throw errors.validation(rule.type === 'string' ? (rule.message ?? `${label} is required`) : fieldMessage(label, rule));
      }
      if ('default' in rule && rule.default !== undefined) out[name] = rule.default;
      continue;
    }
    switch (rule.type) {
      case 'string': {
        if (typeof value !== 'string') throw errors.validation(`${label} must be a string`);
        if (rule.enum && !rule.enum.includes(value)) throw errors.validation(fieldMessage(label, rule));
        if (rule.maxLength !== undefined && value.length > rule.maxLength) {
          throw errors.validation(`${label} is too long: at most ${rule.maxLength} characters are accepted`);
        }
        if (rule.textRule && !meetsTextMinimum(value)) throw errors.validation(TEXT_TOO_SHORT_MESSAGE);
        if (rule.pattern !== undefined && !new RegExp(rule.pattern, 'u').test(value)) throw errors.validation(rule.message ?? `${label} has an invalid format`);
        if (rule.format === 'http-url' && !isHttpUrl(value.trim())) throw errors.validation(fieldMessage(label, rule));
        out[name] = value;
        break;
      }
      case 'number': {
        if (opts.coerce && typeof value === 'string' && value.trim() !== '') value = Number(value);
        if (typeof value !== 'number' || !Number.isFinite(value) || value < rule.minimum || value > rule.maximum) {
          throw errors.validation(fieldMessage(label, rule));
        }
        out[name] = value;
        break;
      }
      case 'boolean': {
        if (opts.coerce && (value === 'true' || value === 'false')) value = value === 'true';
        if (typeof value !== 'boolean') throw errors.validation(fieldMessage(label, rule));
        out[name] = value;
        break;
      }
      case 'object': {
        out[name] = validateFields(value, rule.fields, { ...opts, prefix: label });
        break;
      }
    }
  }
  return out as FieldValues<R>;
}

export interface JsonSchema {
  [key: string]: unknown;
}

/** JSON Schema (OpenAPI 3.0 flavour) of a set of field rules. */
export function fieldsToJsonSchema(rules: FieldRules): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, rule] of Object.entries(rules)) {
    if (rule.required) required.push(name);
    const base: JsonSchema = rule.description ? { description: rule.description } : {};
    switch (rule.type) {
      case 'string':
        properties[name] = {
          ...base,
          type: 'string',
          ...(rule.enum ? { enum: [...rule.enum] } : {}),
          ...(rule.textRule ? { minLength: MIN_CHARS } : {}),
          ...(rule.maxLength !== undefined ? { maxLength: rule.maxLength } : {}),
          ...(rule.pattern !== undefined ? { pattern: rule.pattern } : {}),
          ...(rule.format === 'http-url' ? { format: 'uri', pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' } : {}),
        };
        break;
      case 'number':
        properties[name] = { ...base, type: 'number', minimum: rule.minimum, maximum: rule.maximum, ...(rule.default !== undefined ? { default: rule.default } : {}) };
        break;
      case 'boolean':
        properties[name] = { ...base, type: 'boolean', ...(rule.default !== undefined ? { default: rule.default } : {}) };
        break;
      case 'object':
        properties[name] = { ...base, ...fieldsToJsonSchema(rule.fields) };
        break;
    }
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}) };
}
