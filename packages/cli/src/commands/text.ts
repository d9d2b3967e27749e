import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { tokens, type PronunciationRule, type TextPipeline, type TextPipelineOptions, type TextStageName } from '@sawt/core';
import { withAdminApp } from '../admin.js';
import { cannotRead, UsageError } from '../args.js';
import type { CommandInput } from '../command.js';
import { printable } from '../printable.js';

/** Lines per block: enough for full diacritizer batches, few enough to keep the output flowing. */
const BLOCK_LINES = 64;

/**
 * `sawt text normalize|diacritize|phonemize`: one TEXT, or with `--file PATH|-` one output line per input line,
 * taken in blocks so the diacritizer runs batched. `--ssml` and `--dictionary FILE` read the text as a request
 * with text_type "ssml" and a dictionary would; the markup that stays markup is shown in order. It streams.
 */
export async function textCommand(stage: TextStageName, { values, positionals }: CommandInput, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const file = typeof values.file === 'string' ? values.file : null;
  const json = values.json === true;
  if (file !== null && positionals.length) throw new UsageError(`text ${stage} takes TEXT or --file, not both`);
  const input = positionals.join(' ');
  if (file === null && input.trim() === '') throw new UsageError(`text ${stage} needs the TEXT to process (or --file PATH, - for stdin)`);
  const dialect = typeof values.dialect === 'string' ? values.dialect : null;
  const model = typeof values.model === 'string' ? values.model : null;
  const dictionary = typeof values.dictionary === 'string' ? await readDictionary(values.dictionary) : null;
  const lines = file === null ? null : await openLines(file);
  await withAdminApp(async (app) => {
    const pipeline = app.get(tokens.textPipeline);
    const rules: PronunciationRule[] = dictionary === null ? [] : dictionaryRules(app.get(tokens.pronunciationDictionaries), dictionary);
    const reading: TextPipelineOptions = { ...(values.ssml === true && { textType: 'ssml' as const }), ...(rules.length && { rules }) };
    if (dialect !== null && !pipeline.dialects().includes(dialect)) throw new UsageError(`--dialect must be one of ${pipeline.dialects().join(', ')} but received ${JSON.stringify(dialect)}`);
    const models = app.get(tokens.models).list().map((m) => m.model_id);
    if (model !== null && !models.includes(model)) throw new UsageError(`--model must be one of ${models.join(', ')} but received ${JSON.stringify(model)}`);
    if (lines === null) {
      const output = await pipeline.run(stage, input, { dialect, model, ...reading });
      await write(out, json ? `${JSON.stringify({ input, output })}\n` : `${printable(output)}\n`);
      return;
    }
    await processLines(pipeline, stage, lines(), { dialect, model, ...reading }, json, out);
  });
}

/** The --dictionary file's text (a missing file fails before anything boots). */
async function readDictionary(file: string): Promise<{ file: string; source: string }> {
  return { file, source: await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => { throw cannotRead('--dictionary', file, e); }) };
}

/** The rules of a --dictionary file, checked as POST /pronunciation-dictionaries checks them. */
function dictionaryRules(dictionaries: { parseRulesFile(source: string): PronunciationRule[] }, d: { file: string; source: string }): PronunciationRule[] {
  try {
    const rules = dictionaries.parseRulesFile(d.source);
    if (!rules.length) throw new Error('it holds no rule');
    return rules;
  } catch (e) {
    throw new UsageError(`--dictionary ${d.file}: ${(e as Error).message}`);
  }
}

/** Opens the input now (a missing file fails before boot); readline is made on reading, as it drops unread lines. */
async function openLines(file: string): Promise<() => AsyncIterable<string>> {
  if (file === '-') return () => createInterface({ input: process.stdin, crlfDelay: Infinity });
  const stream = createReadStream(file, { encoding: 'utf8' });
  await once(stream, 'open').catch((e: NodeJS.ErrnoException) => { throw cannotRead('--file', file, e); });
  stream.pause();
  return () => createInterface({ input: stream, crlfDelay: Infinity });
}

async function processLines(pipeline: TextPipeline, stage: TextStageName, lines: AsyncIterable<string>, opts: TextPipelineOptions, json: boolean, out: NodeJS.WritableStream): Promise<void> {
  let block: string[] = [];
  let lineNo = 0;
  const flush = async () => {
    // Empty lines stay empty lines (the front end has nothing to say for them).
    const texts = block.map((l) => l.replace(/^\uFEFF/u, ''));
    const outputs = await runBlock(pipeline, stage, texts.map((t) => (t.trim() ? t : '')), opts, lineNo - texts.length + 1);
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

/** runMany; when markup or a rule fails (SSML, --dictionary), the error names the line: `line 7: SSML: …`. */
async function runBlock(pipeline: TextPipeline, stage: TextStageName, texts: string[], opts: TextPipelineOptions, firstLine: number): Promise<string[]> {
  try {
    return await pipeline.runMany(stage, texts, opts);
  } catch (e) {
    if (!opts.textType && !opts.rules) throw e;
    for (const [k, text] of texts.entries()) {
      await pipeline.runMany(stage, [text], opts).catch((err: Error) => {
        throw new Error(`line ${firstLine + k}: ${err.message}`);
      });
    }
    throw e;
  }
}

/** Writes with backpressure (an error while waiting for 'drain' rejects). */
async function write(out: NodeJS.WritableStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}
