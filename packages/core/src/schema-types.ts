/**
 * The TypeScript type of the values a JSON Schema accepts, for the subset plugin option
 * schemas use: type (one or a list), enum, const, anyOf, properties with required and
 * default, additionalProperties, items. Plugins declare their `configSchema` `as const`
 * and take their options' type from it, so the type cannot drift from what is validated:
 *
 *   const configSchema = { type: 'object', properties: { port: { type: 'integer', default: 80 } } } as const;
 *   type MyOptions = FromSchema<typeof configSchema>; // { port: number }
 *
 * A property with a `default` is always present: the loader validates options with
 * defaults applied (ajv `useDefaults`). Anything outside the subset is `unknown`.
 */
export type FromSchema<S> =
  S extends { const: infer C } ? C
    : S extends { enum: readonly (infer E)[] } ? E
      : S extends { anyOf: readonly (infer A)[] } ? (A extends unknown ? FromSchema<A> : never)
        : S extends { type: readonly (infer T)[] } ? (T extends JsonTypeName ? OfType<S, T> : never)
          : S extends { type: infer T extends JsonTypeName } ? OfType<S, T>
            : unknown;

type JsonTypeName = 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'array' | 'object';

type OfType<S, T extends JsonTypeName> =
  T extends 'string' ? string
    : T extends 'number' | 'integer' ? number
      : T extends 'boolean' ? boolean
        : T extends 'null' ? null
          : T extends 'array' ? (S extends { items: infer I } ? FromSchema<I>[] : unknown[])
            : ObjectOf<S>;

/** Property names always present: listed in `required`, or given a `default`. */
type Present<S, P> = (S extends { required: readonly (infer R)[] } ? R & keyof P : never) | { [K in keyof P]: P[K] extends { default: unknown } ? K : never }[keyof P];

type Expand<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;

type ObjectOf<S> = S extends { properties: infer P }
  ? Expand<{ -readonly [K in Present<S, P>]: FromSchema<P[K]> } & { -readonly [K in Exclude<keyof P, Present<S, P>>]?: FromSchema<P[K]> }>
  : S extends { additionalProperties: infer A extends object } ? Record<string, FromSchema<A>>
    : Record<string, unknown>;
