import { createWriteStream } from 'node:fs';
import { readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { UsageError, type Flags } from '../args.js';
import type { CommandInput, CommandResult } from '../command.js';

/**
 * `sawt jobs submit|status|download|cancel`: long-form jobs on a running Sawt, through its API
 * (the server from --server or SAWT_SERVER, the key from --key or SAWT_API_KEY).
 */

/** A job as GET /jobs/{id} answers it (the fields this command reads). */
interface JobView {
  job_id: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'canceled';
  title: string | null;
  progress: number;
  characters: number;
  characters_done: number;
  audio_seconds: number;
  eta_seconds: number | null;
  cost: string;
  output_format: string;
  error: { status: number; errorCode: number; errorMessage: string } | null;
}

interface Api {
  base: string;
  call(method: string, path: string, init?: { json?: unknown; form?: FormData }): Promise<Response>;
}

const str = (values: Flags, k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);

/** The server and key of a command, from its options or the environment. */
function apiOf(values: Flags): Api {
  const server = str(values, 'server') ?? process.env.SAWT_SERVER;
  const key = str(values, 'key') ?? process.env.SAWT_API_KEY;
  if (!server) throw new UsageError('jobs needs the server: --server URL (or SAWT_SERVER), e.g. http://127.0.0.1:8080');
  if (!key) throw new UsageError('jobs needs an API key of that server: --key KEY (or SAWT_API_KEY)');
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new UsageError(`--server must be a URL such as http://127.0.0.1:8080 but received ${JSON.stringify(server)}`);
  }
  const base = `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}/api/v1`;
  return {
    base,
    async call(method, p, init = {}) {
      const headers: Record<string, string> = { 'x-api-key': key };
      let body: BodyInit | undefined = init.form;
      if (init.json !== undefined) {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(init.json);
      }
      const r = await fetch(base + p, { method, headers, body }).catch((e: Error) => {
        throw new Error(`cannot reach ${base}: ${(e.cause as Error | undefined)?.message ?? e.message}`);
      });
      if (!r.ok) throw await apiError(r);
      return r;
    },
  };
}

/** The server's error as one line: status, errorCode and its message. */
async function apiError(r: Response): Promise<Error> {
  const body = await r.text().catch(() => '');
  try {
    const e = JSON.parse(body) as { errorCode?: number; errorMessage?: string };
    if (e.errorMessage) return new Error(`the server answered ${r.status} (${e.errorCode}): ${e.errorMessage}`);
  } catch {
    /* not JSON (a proxy's page) */
  }
  return new Error(`the server answered ${r.status}${body ? `: ${body.slice(0, 200)}` : ''}`);
}

function jobIdOf(positionals: string[] | string): string {
  // commander hands a single argument over as a string.
  const id = [positionals].flat()[0];
  if (!id) throw new UsageError('give the JOB_ID');
  return id;
}

const jobPath = (id: string) => `/jobs/${encodeURIComponent(id)}`;

export async function jobsSubmit({ values }: CommandInput): Promise<CommandResult> {
  const api = apiOf(values);
  const file = str(values, 'file');
  const text = str(values, 'text');
  if ((file === undefined) === (text === undefined)) throw new UsageError('jobs submit takes --file FILE or --text TEXT (one of them)');
  let source: Buffer | null = null;
  if (file !== undefined) {
    source = await readFile(file).catch((e: NodeJS.ErrnoException) => {
      throw new UsageError(`--file: cannot read ${JSON.stringify(file)} (${e.code ?? e.message})`);
    });
  }
  // Model and voice default to the server's first model and that model's default voice.
  let model = str(values, 'model');
  let voice = str(values, 'voice');
  if (model === undefined || voice === undefined) {
    const models = (await (await api.call('GET', '/models')).json()) as Array<{ model_id: string; default_voice_id: string | null }>;
    const m = model === undefined ? models[0] : models.find((x) => x.model_id === model);
    if (!m) throw new Error(model === undefined ? `${api.base} offers no model` : `--model: the server has no model '${model}' (models: ${models.map((x) => x.model_id).join(', ')})`);
    model = m.model_id;
    voice ??= m.default_voice_id ?? undefined;
    if (!voice) throw new UsageError(`--voice: model ${model} has no default voice; give --voice`);
  }
  const fields: Record<string, string | undefined> = {
    voice_id: voice, output_format: str(values, 'format'), title: str(values, 'title'), callback_url: str(values, 'callback-url'), speed: str(values, 'speed'),
  };
  const route = `/text-to-speech/${encodeURIComponent(model)}/jobs`;
  let res: Response;
  if (source !== null) {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) form.append(k, v);
    form.append('file', new Blob([new Uint8Array(source)], { type: /\.(md|markdown)$/i.test(file!) ? 'text/markdown' : 'text/plain' }), path.basename(file!));
    res = await api.call('POST', route, { form });
  } else {
    const body: Record<string, unknown> = { ...fields, text, speed: fields.speed === undefined ? undefined : Number(fields.speed) };
    res = await api.call('POST', route, { json: body });
  }
  const job = (await res.json()) as { job_id: string; status: string };
  return { json: job, text: job.job_id };
}

/** Seconds as a person reads them: 42 s, 3 min 5 s, 1 h 2 min. */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

function statusLine(j: JobView): string {
  const parts = [`${j.job_id} ${j.status}`, `${Math.floor(j.progress * 100)}%`, `${j.characters_done}/${j.characters} characters`, `${j.audio_seconds.toFixed(1)} s of audio`];
  if (j.eta_seconds !== null) parts.push(`ETA ${duration(j.eta_seconds)}`);
  if (j.title) parts.push(`"${j.title}"`);
  let line = parts.join(', ');
  if (j.error) line += `\nerror ${j.error.status} (${j.error.errorCode}): ${j.error.errorMessage}`;
  return line;
}

export async function jobsStatus({ values, positionals }: CommandInput): Promise<CommandResult> {
  const api = apiOf(values);
  const job = (await (await api.call('GET', jobPath(jobIdOf(positionals)))).json()) as JobView;
  return { json: job, text: statusLine(job) };
}

/** The audio (or captions) of a finished job to --out, renamed into place once complete. */
export async function jobsDownload({ values, positionals }: CommandInput): Promise<CommandResult> {
  const api = apiOf(values);
  const id = jobIdOf(positionals);
  const out = str(values, 'out');
  if (!out) throw new UsageError('jobs download needs --out FILE');
  const captions = str(values, 'captions');
  if (captions !== undefined && captions !== 'vtt' && captions !== 'srt') throw new UsageError(`--captions must be vtt or srt but received ${JSON.stringify(captions)}`);
  const res = await api.call('GET', `${jobPath(id)}/${captions ? `captions.${captions}` : 'audio'}`);
  const tmp = `${out}.partial-${process.pid}`;
  try {
    await pipeline(Readable.fromWeb(res.body as WebReadableStream), createWriteStream(tmp));
    await rename(tmp, out);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
  const { size } = await stat(out);
  const type = res.headers.get('content-type') ?? '';
  return { json: { job_id: id, out, bytes: size, content_type: type }, text: `wrote ${out} (${size} bytes, ${type})` };
}

export async function jobsCancel({ values, positionals }: CommandInput): Promise<CommandResult> {
  const api = apiOf(values);
  const id = jobIdOf(positionals);
  const r = (await (await api.call('DELETE', jobPath(id))).json()) as { status: string };
  return { json: { job_id: id, ...r }, text: `${id} ${r.status}` };
}

const SERVER_OPTIONS = [
  { flags: '--server <url>', description: 'the Sawt server, e.g. http://127.0.0.1:8080 (default SAWT_SERVER)' },
  { flags: '--key <key>', description: 'an API key of that server (default SAWT_API_KEY)' },
];
const JOB = { spec: '<job-id>', description: 'the job_id that submit printed' };

/** The jobs commands, as program.ts lists its commands. */
export const JOBS_COMMANDS = [
  {
    path: 'jobs submit', summary: 'Submit a long text (up to 1,000,000 characters, or a UTF-8 text/Markdown file) as a job; prints its job_id',
    options: [
      { flags: '--file <file>', description: 'a UTF-8 text or Markdown file (Markdown markup is not spoken)' },
      { flags: '--text <text>', description: 'the text itself' },
      { flags: '--model <model-id>', description: 'model (default: the server\'s first)' },
      { flags: '--voice <voice-id>', description: 'voice (default: the model\'s default voice)' },
      { flags: '--format <output-format>', description: 'output_format, e.g. mp3_44100_64 (the default), opus_48000_64, wav_24000' },
      { flags: '--speed <n>', description: '0.7 to 1.2 (default 1.0)' },
      { flags: '--title <title>', description: 'a title, shown in its status and webhook' },
      { flags: '--callback-url <url>', description: 'POSTed the outcome, signed with the account\'s webhook secret' },
      ...SERVER_OPTIONS,
    ],
    examples: ['sawt jobs submit --file book.md --model sawt-hts --voice fusha-ziad --server http://127.0.0.1:8080 --key $KEY', 'SAWT_SERVER=http://127.0.0.1:8080 SAWT_API_KEY=$KEY sawt jobs submit --text "مرحبا بكم في خدمة صوت" --json'],
    run: { handler: jobsSubmit },
  },
  {
    path: 'jobs status', summary: 'A job\'s status, progress, characters done, audio seconds and ETA',
    args: JOB, options: SERVER_OPTIONS,
    examples: ['sawt jobs status JOB_ID', 'sawt jobs status JOB_ID --json'], run: { handler: jobsStatus },
  },
  {
    path: 'jobs download', summary: 'Write a finished job\'s audio (or its captions) to a file',
    args: JOB,
    options: [
      { flags: '--out <file>', description: 'the file to write (renamed into place once complete)', required: true },
      { flags: '--captions <vtt|srt>', description: 'the sentence captions instead of the audio' },
      ...SERVER_OPTIONS,
    ],
    examples: ['sawt jobs download JOB_ID --out book.mp3', 'sawt jobs download JOB_ID --captions vtt --out book.vtt'], run: { handler: jobsDownload },
  },
  {
    path: 'jobs cancel', summary: 'Cancel a queued or running job (its reservation released), or delete a finished one with its files',
    args: JOB, options: SERVER_OPTIONS,
    examples: ['sawt jobs cancel JOB_ID'], run: { handler: jobsCancel },
  },
];
