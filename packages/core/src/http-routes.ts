/** The route contract for plugins: transport-http gives a declared route authentication, scopes, limits and the error shape. */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { SawtError, type ErrorKindName } from './errors.js';
import type { FieldRules, FieldValues } from './fields.js';
import type { AuthContext } from './services/index.js';

/** A scope a plugin declares in its manifest (`scopes`): an API key may be restricted to some scopes. */
export interface ScopeDeclaration {
  /** Lowercase name, e.g. 'denoise'; what keys list in `endpoints`. */
  name: string;
  /** What a key with this scope may call (help texts, documentation). */
  description: string;
  /** Listed right after this scope when it is declared (keeps related scopes together in messages). */
  after?: string;
}

/** Every scope the configured plugins declare (core service `tokens.scopes`). */
export interface ScopeRegistry {
  /** The scope names, in declaration order. */
  readonly names: readonly string[];
  has(name: string): boolean;
  get(name: string): ScopeDeclaration | undefined;
}

/** A file of a multipart upload, streamed to a work file (never held in memory). */
export interface UploadedFile {
  path: string;
  bytes: number;
  sha256: string;
  /** The first bytes (up to 4 KiB), for sniffing. */
  head: Buffer;
}

/** How a route receives a multipart/form-data upload. */
export interface UploadSpec<F extends FieldRules = FieldRules> {
  /** File fields: name → description (OpenAPI). Other file fields are discarded. */
  files: Record<string, string>;
  /** Names of `files` that the OpenAPI document marks required (default: all). The handler checks presence itself. */
  requiredFiles?: string[];
  /** Text fields, validated (numbers and booleans coerced from their text) before `upload()` resolves. */
  fields?: F;
  /** Largest file accepted (bytes); default: transport-http's maxUploadBytes. Over it: 40001 while the client still sends. */
  maxFileBytes?: number;
  /** The messages of the 40001 answers, when the route words them its own way. */
  messages?: {
    /** The body is not multipart/form-data. */
    notMultipart?: string;
    /** A file passed maxFileBytes. */
    tooLarge?: (field: string, maxBytes: number) => string;
  };
}

export interface ReceivedUpload<F extends FieldRules = FieldRules> {
  /** The text fields after validation (with defaults), typed from the upload's rules. */
  fields: FieldValues<F>;
  /** The uploaded files by field name (absent when not sent). */
  files: Record<string, UploadedFile>;
}

/** The upload stopped before its end (the client went away); a 40001 that nobody will read. */
export class UploadCutOff extends SawtError {
  constructor() {
    super('validation', 'The request body was cut off before it ended');
  }
}

/** A route a plugin declares with `route()`; `B` and `U` (body and upload field rules) type the handler's input. */
export interface PluginRoute<B extends FieldRules = FieldRules, U extends FieldRules = FieldRules> {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  /** Path below /api/v1, e.g. '/greetings/:name' (fastify syntax for parameters). */
  path: string;
  summary: string;
  /** The scope a key needs, declared in some plugin's manifest; null: no API key needed. */
  scope: string | null;
  /** A JSON body validated against these rules (40001 with the rule's message); documented from them. */
  body?: B;
  /** A multipart/form-data upload instead of a JSON body: read by `request.upload()`. */
  upload?: UploadSpec<U>;
  /** OpenAPI parameter objects (path and query parameters). */
  parameters?: Array<Record<string, unknown>>;
  /** OpenAPI responses of success (and any error described the route's own way). */
  responses: Record<string, unknown>;
  /** Further errors the handler may answer with (40101, 40302, 42902 and 40001 are added as they apply). */
  errors?: ErrorKindName[];
}

export interface RouteRequest<B extends FieldRules = FieldRules, U extends FieldRules = FieldRules> {
  /** The request id (also sent as x-request-id). */
  readonly id: string;
  /** Who called: set on every route with a scope (null on routes without one). */
  readonly auth: AuthContext | null;
  /** The JSON body after validation against `body` (with defaults); {} without `body`. */
  readonly body: FieldValues<B>;
  readonly params: Record<string, string>;
  readonly query: Record<string, unknown>;
  readonly headers: IncomingHttpHeaders;
  /** The Node request (its body is already read, except on upload routes). */
  readonly raw: IncomingMessage;
  /** Reads the upload into work files removed when the handler settles; rejects with 40001 or UploadCutOff. */
  upload(): Promise<ReceivedUpload<U>>;
}

export interface RouteReply {
  /** The Node response (e.g. to watch for 'close'). */
  readonly raw: ServerResponse;
  /** Sets a response header for the answer sent by `json`, `send` or an error. */
  header(name: string, value: string): RouteReply;
  /** Answers JSON. */
  json(body: unknown, status?: number): void;
  /** Answers bytes with their Content-Type and Content-Length. */
  send(body: Buffer, contentType: string, status?: number): void;
  /** Takes over the Node response: the handler writes status, headers (x-request-id included) and body itself. */
  takeOver(): ServerResponse;
}

/** Answers a request; a thrown SawtError becomes {errorCode, errorMessage} with its status (anything else: 500). */
export type RouteHandler<B extends FieldRules = FieldRules, U extends FieldRules = FieldRules> = (request: RouteRequest<B, U>, reply: RouteReply) => Promise<void>;

/** The part of the HTTP server service plugins declare routes with. */
export interface HttpRoutes {
  /** Registers `route` (during register()) and documents it; throws when no plugin declares its scope. */
  route<const B extends FieldRules = Record<never, never>, const U extends FieldRules = Record<never, never>>(route: PluginRoute<B, U>, handler: RouteHandler<B, U>): void;
}
