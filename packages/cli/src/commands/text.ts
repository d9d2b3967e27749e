import { createReadStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { tokens, type TextPipeline, type TextPipelineOptions, type TextStageName } from '@sawt/core';
import { withAdminApp } from '../admin.js';
import { UsageError } from '../args.js';
import type { CommandInput } from '../command.js';
import { printable } from '../printable.js';

/** Lines per block: enough for full diacritizer batches, few enough to keep the output flowing. */
const BLOCK_LINES = 64;

/**
 * `sawt text normalize|diacritize|phonemize`: one TEXT, or with `--file PATH|-` one output line per
 * input line, in order, in one process, lines taken in blocks so the diacritizer runs batched.
 * `--json`: one JSON object per output ({"line", "input", "output"}; for TEXT, {"input", "output"}).
 * It writes its own output (it streams).
 */
export async function textCommand(stage: TextStageName, { values, positionals }: CommandInput, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const file = typeof values.file === 'string' ? values.file : null;
  const json = values.json === true;
  if (file !== null && positionals.length) throw new UsageError(`text ${stage} takes TEXT or --file, not both`);
  const input = positionals.join(' ');
  if (file === null && input.trim() === '') throw new UsageError(`text ${stage} needs the TEXT to process (or --file PATH, - for stdin)`);
  const dialect = typeof values.dialect === 'string' ? values.dialect : null;
  const model = typeof values.model === 'string' ? values.model : null;
  const lines = file === null ? null : await openLines(file);
  await withAdminApp(async (app) => {
    const pipeline = app.get(tokens.textPipeline);
    if (dialect !== null && !pipeline.dialects().includes(dialect)) throw new UsageError(`--dialect must be one of ${pipeline.dialects().join(', ')} but received ${JSON.stringify(dialect)}`);
    const models = app.get(tokens.models).list().map((m) => m.model_id);
    if (model !== null && !models.includes(model)) throw new UsageError(`--model must be one of ${models.join(', ')} but received ${JSON.stringify(model)}`);
    if (lines === null) {
      const output = await pipeline.run(stage, input, { dialect, model });
      await write(out, json ? `${JSON.stringify({ input, output })}\n` : `${printable(output)}\n`);
      return;
    }
    await processLines(pipeline, stage, lines(), { dialect, model }, json, out);
  });
}

/**
 * Opens the input (a missing file fails before anything boots) and returns a function giving its
 * lines; readline is only created when they are read, as it drops lines no iterator waits for.
 */
async function openLines(file: string): Promise<() => AsyncIterable<string>> {
  if (file === '-') return () => createInterface({ input: process.stdin, crlfDelay: Infinity });
  const stream = createReadStream(file, { encoding: 'utf8' });
  await once(stream, 'open').catch((e: NodeJS.ErrnoException) => {
    throw new UsageError(`--file: cannot read ${JSON.stringify(file)} (${e.code ?? e.message})`);
  });
  stream.pause();
  return () => createInterface({ input: stream, crlfDelay: Infinity });
}

async function processLines(pipeline: TextPipeline, stage: TextStageName, lines: AsyncIterable<string>, opts: TextPipelineOptions, json: boolean, out: NodeJS.WritableStream): Promise<void> {
  let block: string[] = [];
  let lineNo = 0;
  const flush = async () => {
    // Empty lines stay empty lines (the front end has nothing to say for them).
    const texts = block.map((l) => l.replace(/^\uFEFF/u, ''));
    const outputs = await pipeline.runMany(stage, texts.map((t) => (t.trim() ? t : '')), opts);
    const text = texts.map((t, k) => {
      const output = t.trim() ? outputs[k]!.replace(/\r?\n/gu, ' ') : '';
      return json ? `${JSON.stringify({ line: lineNo - texts.length + k + 1, input: t, output })}\n` : `${printable(output)}\n`;
    }).join('');
    block = [];
    await write(out, text);
  };
  for await (const line of lines) {
    block.push(line);
    lineNo++;
    if (block.length >= BLOCK_LINES) await flush();
  }
  if (block.length) await flush();
}

/** Writes with backpressure; a closed pipe (… | head) ends quietly. */
function write(out: NodeJS.WritableStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (out.write(text)) resolve();
    else {
      const onError = (e: Error) => reject(e);
      out.once('error', onError);
      out.once('drain', () => {
        out.off('error', onError);
        resolve();
      });
    }
  });
}
