import type { PronunciationDictionary, PronunciationDictionaryCreateBody, PronunciationDictionarySummary, PronunciationDictionaryUpdateBody } from './generated/api-types.js';
import { request, type RequestOptions, type Transport } from './http.js';

/** A dictionary rule: `{string_to_replace, type: "alias", alias}` or `{string_to_replace, type: "phoneme", phoneme, alphabet}`. */
export type PronunciationRule = PronunciationDictionaryCreateBody['rules'][number];

/** A PLS 1.0 lexicon to upload: its text, its bytes or a Blob/File. */
export type PlsInput = string | Blob | Uint8Array | ArrayBuffer;

/** POST /pronunciation-dictionaries: JSON rules, or a PLS 1.0 file. */
export type CreateDictionaryRequest = PronunciationDictionaryCreateBody | { name: string; file: PlsInput; fileName?: string };

/** PATCH /pronunciation-dictionaries/{id}: rules added (replacing those for the same strings) or removed, a new name; or a PLS file whose lexemes are added. */
export type UpdateDictionaryRequest = PronunciationDictionaryUpdateBody | { name?: string; file: PlsInput; fileName?: string };

/** `pronunciation_dictionary_locators` of a request: a dictionary, at a version (default: its latest). */
export interface DictionaryLocator {
  pronunciation_dictionary_id: string;
  version_id?: string;
}

const path = (id: string) => `/pronunciation-dictionaries/${encodeURIComponent(id)}`;

/** The request's body: JSON rules, or a multipart form with the PLS file. */
function bodyOf(req: CreateDictionaryRequest | UpdateDictionaryRequest): { json: unknown } | { body: FormData } {
  if (!('file' in req)) return { json: req };
  const form = new FormData();
  if (req.name !== undefined) form.append('name', req.name);
  const file = typeof req.file === 'string' ? new TextEncoder().encode(req.file) : req.file;
  if (file instanceof Blob) form.append('file', file, (file as File).name || req.fileName || 'lexicon.pls');
  else form.append('file', new Blob([file as BlobPart], { type: 'application/pls+xml' }), req.fileName ?? 'lexicon.pls');
  return { body: form };
}

/**
 * The account's pronunciation dictionaries (scope `dictionaries`): each version stays usable by its version_id until
 * the dictionary is deleted; a request names up to three with `pronunciation_dictionary_locators`.
 */
export class PronunciationDictionaries {
  /** @internal use SawtClient.pronunciationDictionaries */
  constructor(private readonly transport: Transport) {}

  /** POST /pronunciation-dictionaries: from `{name, rules}`, or `{name, file}` (a PLS 1.0 lexicon). */
  async create(req: CreateDictionaryRequest, opts: RequestOptions = {}): Promise<PronunciationDictionary> {
    return (await request(this.transport, 'POST', '/pronunciation-dictionaries', { ...opts, ...bodyOf(req) })).json();
  }

  /** GET /pronunciation-dictionaries: the account's dictionaries, each at its latest version, oldest first. */
  async list(opts: RequestOptions = {}): Promise<PronunciationDictionarySummary[]> {
    return (await request(this.transport, 'GET', '/pronunciation-dictionaries', opts)).json();
  }

  /** GET /pronunciation-dictionaries/{id}: its rules at the latest version, or at `versionId`. */
  async get(id: string, opts: RequestOptions & { versionId?: string } = {}): Promise<PronunciationDictionary> {
    const { versionId, ...rest } = opts;
    const query = versionId === undefined ? '' : `?version_id=${encodeURIComponent(versionId)}`;
    return (await request(this.transport, 'GET', `${path(id)}${query}`, rest)).json();
  }

  /** PATCH /pronunciation-dictionaries/{id}: a new version (earlier ones stay usable by version_id). */
  async update(id: string, req: UpdateDictionaryRequest, opts: RequestOptions = {}): Promise<PronunciationDictionary> {
    return (await request(this.transport, 'PATCH', path(id), { ...opts, ...bodyOf(req) })).json();
  }

  /** DELETE /pronunciation-dictionaries/{id}: the dictionary and every version; locators naming it get 404 from then on. */
  async delete(id: string, opts: RequestOptions = {}): Promise<{ id: string; deleted: true }> {
    return (await request(this.transport, 'DELETE', path(id), opts)).json();
  }
}
