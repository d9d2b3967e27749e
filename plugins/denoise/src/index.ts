import { createReadStream, existsSync } from 'node:fs';
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  SawtError, UploadCutOff, definePlugin, errors, isDelivered, isSawtError, ModelFiles, toMicro, tokens,
  type Admission, type AdmissionControl, type AuthContext, type ConcurrencySlot, type HttpServerService, type Logger, type RouteReply, type RouteRequest,
} from '@sawt/core';
import { RnnoiseDenoiser, type Denoiser } from './denoisers.js';
import { DFN3_FILES, Dfn3Denoiser, type Dfn3Files } from './dfn3.js';
import { GtcrnDenoiser } from './gtcrn.js';
import { DecodedTooLong, denoiseFile, NoAudioDecoded } from './pipeline.js';
import { denoiseConfigSchema, durationLimitText, sizeLimitText, type DenoiseOptions } from './options.js';
import { decodedDuration, denoiseSource, NOT_AUDIO, probeAudio } from './probe.js';

export { RnnoiseDenoiser, type Denoiser, type DenoiseSession } from './denoisers.js';
export { GtcrnDenoiser } from './gtcrn.js';
export { Dfn3Denoiser, DFN3_FILES, type Dfn3Files, type Dfn3Options } from './dfn3.js';
export { denoiseFile } from './pipeline.js';
export { decodedDuration, denoiseSource, probeAudio } from './probe.js';
export type { DenoiseOptions } from './options.js';

/** Minutes billed for `seconds` of audio: every started minute. */
export function billedMinutes(seconds: number): number {
  return Math.max(1, Math.ceil(seconds / 60 - 1e-9));
}

/** GTCRN model file in the models layout (not bundled: placed by hand from github Xiaobin-Rong/gtcrn). */
export const GTCRN_MODEL = 'denoise/gtcrn/gtcrn_simple.onnx';
/** DeepFilterNet3 model directory in the models layout (bundled). */
export const DFN3_DIR = 'denoise/dfn3';

/** The DeepFilterNet3 files to load: from `dfn3Dir` when set, else each one SAWT_MODELS_DIR first, then bundled. */
function dfn3Files(opts: DenoiseOptions, files: ModelFiles): { found: Partial<Dfn3Files>; missing: string[] } {
  const found: Partial<Dfn3Files> = {};
  const missing: string[] = [];
  for (const [key, name] of Object.entries(DFN3_FILES) as Array<[keyof Dfn3Files, string]>) {
    const where = opts.dfn3Dir ? path.join(opts.dfn3Dir, name) : files.find(`${DFN3_DIR}/${name}`);
    if (where && existsSync(where)) found[key] = where;
    else missing.push(opts.dfn3Dir ? path.join(opts.dfn3Dir, name) : files.searched(`${DFN3_DIR}/${name}`));
  }
  return { found, missing };
}

// A back end that is configured but cannot load stops the start with a clear
// message, rather than quietly serving another denoiser's quality.
async function makeDenoiser(opts: DenoiseOptions, files: ModelFiles, logger: Logger): Promise<Denoiser> {
  if (opts.backend === 'rnnoise') return new RnnoiseDenoiser();
  if (opts.backend === 'gtcrn') {
    const file = opts.modelPath ?? files.find(GTCRN_MODEL);
    if (!file || !existsSync(file)) {
      throw new Error(`denoise: backend 'gtcrn' needs its model at ${opts.modelPath ?? files.searched(GTCRN_MODEL)} (gtcrn_simple.onnx from github Xiaobin-Rong/gtcrn, stream/onnx_models/; place it there by hand, set the plugin option modelPath, or use backend 'dfn3' or 'rnnoise')`);
    }
    const d = await GtcrnDenoiser.load(file);
    logger.info({ model: file }, 'denoise: GTCRN loaded');
    return d;
  }
  if (opts.backend === 'dfn3') {
    const { found, missing } = dfn3Files(opts, files);
    if (missing.length) {
      throw new Error(`denoise: backend 'dfn3' needs its model files (missing ${missing.join(', ')}; they ship in the repository's models/ folder: restore them (\`sawt models verify\` checks them), set the plugin option dfn3Dir, or use backend 'rnnoise')`);
    }
    const d = await Dfn3Denoiser.load(found as Dfn3Files, { intraOpThreads: opts.dfn3Threads ?? 1, executionProvider: opts.executionProvider ?? 'cpu', speechGuard: opts.speechGuard ?? true, snrBlend: opts.snrBlend ?? true });
    logger.info({ files: found }, 'denoise: DeepFilterNet3 loaded');
    return d;
  }
  throw new Error(`denoise: back end '${opts.backend as string}' is not available`);
}

/**
 * The money of one denoise: reservations (no concurrency slot) growing by whole minutes as the known duration grows
 * (the header's, then the decoded one), each taken before the work it pays for; 402 when the wallet cannot cover one.
 */
class MinuteBill {
  private readonly parts: Array<{ adm: Admission; minutes: number }> = [];
  private minutes = 0;

  constructor(
    private readonly admission: AdmissionControl,
    private readonly auth: AuthContext,
    private readonly requestId: string,
    private readonly priceMicro: number,
    private readonly backend: string,
  ) {}

  /** Reserves the minutes `seconds` of audio cost beyond what is reserved already. */
  async cover(seconds: number): Promise<void> {
    const need = billedMinutes(seconds);
    if (need <= this.minutes) return;
    const more = need - this.minutes;
    const adm = await this.admission.admit({
      auth: this.auth, requestId: this.requestId, chars: 0, costMicro: more * this.priceMicro, concurrency: false,
      description: `denoise: ${need} min (${seconds.toFixed(2)} s) with ${this.backend}${this.minutes ? `, ${more} more after decoding` : ''}`,
    });
    this.parts.push({ adm, minutes: more });
    this.minutes = need;
  }

  /** Charges `minutes` (at most what is reserved), the reservations in order, and frees the rest. */
  async settle(minutes: number): Promise<void> {
    let left = minutes;
    for (const { adm, minutes: m } of this.parts) {
      const take = Math.min(m, left);
      left -= take;
      if (take > 0) await adm.settle(take * this.priceMicro);
      else await adm.release('denoise: the decoded audio was shorter than its header said');
    }
  }

  async release(reason: string): Promise<void> {
    for (const { adm } of this.parts) await adm.release(reason);
  }
}

class ShuttingDown extends Error {
  constructor() {
    super('server shutting down');
  }
}

async function removeQuietly(file: string): Promise<void> {
  await rm(file, { force: true }).catch(() => {});
}

export default definePlugin({
  id: 'denoise',
  tags: ['transport'],
  scopes: [{ name: 'denoise', description: 'POST /denoise: background noise removed from an audio file' }],
  provides: [],
  deps: { http: tokens.httpServer, admission: tokens.admission, metrics: tokens.metrics, workDir: tokens.workDir },
  configSchema: denoiseConfigSchema,
  async register(ctx, { http, admission, metrics, workDir }) {
    const opts = ctx.options;
    const logger = ctx.logger;
    const priceMicro = toMicro(opts.pricePerMinute);
    const denoiser = await makeDenoiser(opts, ModelFiles.of(ctx.runtime), logger);
    const notMultipart = 'audio is required: send multipart/form-data with an audio file field';

    http.route({
      method: 'POST', path: '/denoise', summary: 'Remove background noise from an audio file (WAV, MP3, M4A, FLAC, OGG, or the audio of a video); returns WAV PCM16 at the input\'s sample rate and channel count', scope: 'denoise',
      upload: {
        files: { audio: `Audio file, at most ${opts.maxFileBytes} bytes and ${durationLimitText(opts.maxDurationSeconds)}; the format is detected from the bytes` },
        maxFileBytes: opts.maxFileBytes,
        messages: { notMultipart, tooLarge: (_field, max) => `File size exceeds ${sizeLimitText(max)} limit` },
      },
      responses: {
        200: { description: `Denoised audio, WAV PCM16, with Content-Length. Charged ${opts.pricePerMinute} per started minute.`, content: { 'audio/wav': {} } },
        ...Object.fromEntries(([
          [400, 'ValidationError (40001): audio missing, not audio, File size exceeds the limit, Audio duration exceeds the limit'],
          [401, 'AuthenticationError (40101)'], [402, 'InsufficientBalanceError (40201)'], [403, 'EndpointNotAllowedError (40302)'],
          [429, 'RateLimitError (42902) / ConcurrencyLimitError (42901)'], [500, 'InternalError (50001)'],
        ] as const).map(([s, d]) => [s, { description: d, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } }])),
      },
    }, handle);

    async function handle(req: RouteRequest, reply: RouteReply): Promise<void> {
      const auth = req.auth!;
      const ac = new AbortController();
      const files = new Set<string>();
      const res = reply.raw;
      const onClose = () => {
        if (!res.writableFinished) ac.abort(new Error('client went away'));
      };
      res.on('close', onClose);
      let slot: ConcurrencySlot | null = null;
      const bill = new MinuteBill(admission, auth, req.id, priceMicro, denoiser.name);
      const tooLong = () => errors.validation(`Audio duration exceeds ${durationLimitText(opts.maxDurationSeconds)} limit`);
      const work = (async () => {
        try {
          const upload = (await req.upload()).files.audio;
          if (!upload) throw errors.validation('audio is required and must be an audio file');
          if (upload.bytes === 0) throw errors.validation('audio is required and must not be empty');
          const uploaded = performance.now();
          // In this order, each step before a costlier one: what the bytes are (the container
          // decides the demuxer: nothing else reads an upload), the plan's slot, the header's
          // duration, the money for it, the decoded duration (the header can lie), the money
          // for that, then the denoiser (capped again at the limit, billed what it decoded).
          const source = await denoiseSource(upload);
          if (opts.countConcurrency) slot = await admission.holdSlot(auth);
          const info = await probeAudio(opts.ffprobePath, source, ac.signal);
          if (info.duration !== null && info.duration > opts.maxDurationSeconds) throw tooLong();
          await bill.cover(info.duration ?? 0);
          const seconds = await decodedDuration(opts.ffmpegPath, source, opts.maxDurationSeconds, ac.signal);
          if (seconds > opts.maxDurationSeconds) throw tooLong();
          await bill.cover(seconds);
          const output = workDir.file('denoise', '.wav');
          files.add(output);
          const t0 = performance.now();
          const { decodedSeconds } = await denoiseFile({ ffmpeg: opts.ffmpegPath, source, output, info, denoiser, signal: ac.signal, maxSeconds: opts.maxDurationSeconds }).catch((e) => {
            if (e instanceof NoAudioDecoded) throw errors.validation(NOT_AUDIO);
            throw e instanceof DecodedTooLong ? tooLong() : e;
          });
          // The bill is what the denoiser decoded (at most what is reserved).
          await bill.cover(decodedSeconds);
          const minutes = billedMinutes(decodedSeconds);
          await removeQuietly(upload.path);
          const size = (await stat(output)).size;
          const ids = { requestId: req.id, accountId: auth.account.id, keyId: auth.key.id };
          logger.info({ ...ids, seconds: decodedSeconds, headerSeconds: info.duration, minutes, ms: Math.round(performance.now() - t0), backend: denoiser.name }, 'denoised');
          reply.takeOver();
          res.writeHead(200, { 'content-type': 'audio/wav', 'cache-control': 'no-cache', 'content-length': size, 'x-request-id': req.id });
          const sent = { bytes: 0, contentLength: size };
          // The plan's slot is freed before the last byte, so a request sent once the client has it
          // is never refused for concurrency (it was freed after the money was settled: 50-80 ms later).
          const counter = new Transform({
            transform(chunk: Buffer, _e, cb) {
              sent.bytes += chunk.length;
              const held = slot;
              if (sent.bytes < size || !held || chunk.length === 0) return cb(null, chunk);
              slot = null;
              this.push(chunk.subarray(0, chunk.length - 1));
              held.release().then(() => cb(null, chunk.subarray(chunk.length - 1)), cb);
            },
          });
          try {
            await pipeline(createReadStream(output), counter, res);
          } catch {
            /* judged below: a client that closed after the last byte still got it all */
          }
          const delivered = isDelivered(res, sent);
          if (delivered) {
            await bill.settle(minutes);
            metrics.observeDenoise(decodedSeconds, (performance.now() - uploaded) / 1000);
          } else await bill.release('client disconnected during denoise response');
        } catch (e) {
          await bill.release(`denoise failed: ${(e as Error).message}`);
          if (ac.signal.reason instanceof ShuttingDown && !res.headersSent && !res.destroyed) throw new SawtError('unavailable', 'Server is shutting down; retry shortly');
          if (e instanceof UploadCutOff || ac.signal.aborted) {
            logger.info({ requestId: req.id, accountId: auth.account.id, keyId: auth.key.id }, 'denoise: client went away');
            if (!res.headersSent) res.destroy();
            return;
          }
          if (isSawtError(e)) {
            if (e.status === 400 && !req.raw.complete) {
              // Answer now, mid-upload; discard what the client still sends, then close.
              reply.header('connection', 'close');
              req.raw.resume();
            }
            throw e;
          }
          logger.error({ err: e, requestId: req.id, accountId: auth.account.id, keyId: auth.key.id }, 'denoise failed');
          throw errors.internal('Failed to denoise audio', e);
        } finally {
          await (slot as ConcurrencySlot | null)?.release();
          res.off('close', onClose);
          await Promise.all([...files].map(removeQuietly));
        }
      })();
      await http.trackInFlight(work, () => ac.abort(new ShuttingDown()));
    }

    return {
      async stop() {
        await denoiser.dispose?.();
      },
    };
  },
});

export type { HttpServerService };
