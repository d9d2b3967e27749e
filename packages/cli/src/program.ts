import { readFileSync } from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { PLANS, type TextStageName } from '@sawt/core';
import { UsageError, type Flags } from './args.js';
import { commands } from './admin-commands.js';
import type { CommandInput, Handler } from './command.js';
import { JOBS_COMMANDS } from './commands/jobs.js';
import { say } from './commands/say.js';
import { textCommand } from './commands/text.js';
import { printable } from './printable.js';
import { serve } from './serve.js';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

interface OptionSpec {
  /** commander flags, e.g. '--account <id>' or '--force'. */
  flags: string;
  description: string;
  required?: boolean;
}

/** A leaf command: its place, help and what it runs. */
interface CommandSpec {
  path: string;
  summary: string;
  /** commander argument, e.g. '[names...]'. */
  args?: { spec: string; description: string };
  options?: OptionSpec[];
  examples: string[];
  /** Admin commands print their result (JSON with --json, else text); the others write their own output. Default: commands[path]. */
  run?: { handler: Handler } | { action: (input: CommandInput) => Promise<number | void> };
  /** Adds --json (default true). */
  json?: boolean;
}

const GROUPS: Record<string, string> = {
  accounts: 'Accounts (a plan and a wallet each)',
  keys: 'API keys of an account',
  wallet: 'An account\'s balance and money movements',
  models: 'The model catalog and its files',
  text: 'The Arabic text front end, stage by stage',
  jobs: 'Long-form jobs on a running server (--server/SAWT_SERVER, --key/SAWT_API_KEY)',
};

const account = (what = 'the account\'s id'): OptionSpec => ({ flags: '--account <id>', description: what, required: true });
const DIALECTS = 'fusha, egyptian, emirati, najdi, hijazi, kuwaiti';

/** Every command. Others add theirs here: path, help, options, examples, handler. */
const SPECS: CommandSpec[] = [
  {
    path: 'serve', summary: 'Start the HTTP and WebSocket API (SAWT_HOST, SAWT_PORT, SAWT_DATA_DIR, SAWT_CONFIG, SAWT_MODELS_DIR); SIGTERM/SIGINT stop it gracefully',
    options: [
      { flags: '--workers <n>', description: 'processes sharing the port, 1 to 256 (default SAWT_WORKERS, else one per core)' },
      { flags: '--port <port>', description: 'the port to listen on (default SAWT_PORT, else 8080; 0: any free port)' },
      { flags: '--host <address>', description: 'the address to listen on (default SAWT_HOST, else 127.0.0.1)' },
    ],
    examples: ['sawt serve', 'sawt serve --port 9000', 'SAWT_HOST=0.0.0.0 sawt serve --port 9000 --workers 4'], json: false,
    run: { action: ({ values }) => serve(values) },
  },
  {
    path: 'migrate', summary: 'Apply the database migrations once (before starting or rolling nodes)',
    examples: ['sawt migrate', 'SAWT_CONFIG=config/cluster.json SAWT_DATABASE_URL=postgres://… sawt migrate --json'],
  },
  {
    path: 'backup', summary: 'Copy the SQLite database to FILE while the server runs (SQLite\'s VACUUM INTO: consistent, no -wal file needed)',
    options: [
      { flags: '--out <file>', description: 'the backup file to write (renamed into place once complete)', required: true },
      { flags: '--force', description: 'replace FILE when it exists' },
    ],
    examples: ['sawt backup --out backups/sawt-$(date +%F).db', 'SAWT_DATA_DIR=/var/lib/sawt sawt backup --out /srv/backup/sawt.db --json'],
  },
  {
    path: 'accounts create', summary: 'Open an account with its opening balance (one transaction)',
    options: [
      { flags: '--name <name>', description: 'account name', required: true },
      { flags: '--plan <plan>', description: `plan: ${PLANS.join(', ')}`, required: true },
      { flags: '--balance <amount>', description: 'opening balance, a decimal amount (default 0)' },
    ],
    examples: ['sawt accounts create --name "Acme" --plan starter --balance 10 --json'],
  },
  { path: 'accounts list', summary: 'List accounts with plan and balance', examples: ['sawt accounts list'] },
  {
    path: 'accounts webhook-secret', summary: 'Make or rotate the account\'s webhook secret (job webhooks are signed with it); shown only here',
    options: [account()],
    examples: ['sawt accounts webhook-secret --account ACCOUNT_ID --json'],
  },
  {
    path: 'keys create', summary: 'Create an API key (the secret is shown only here, stored only as a hash)',
    options: [
      account(),
      { flags: '--endpoints <list>', description: 'comma-separated scopes the key may call, among those the configured plugins declare (e.g. models,tts; default: all)' },
      { flags: '--expires-at <iso8601>', description: 'expiry date-time (default: never)' },
      { flags: '--quota-chars <n>', description: 'characters the key may synthesize in total (default: no quota)' },
    ],
    examples: ['sawt keys create --account ACCOUNT_ID --json', 'sawt keys create --account ACCOUNT_ID --endpoints models,voices,tts --expires-at 2027-01-01T00:00:00Z --quota-chars 100000'],
  },
  {
    path: 'keys list', summary: 'List keys (never their secrets) with expiry, scopes, quota and state',
    options: [{ flags: '--account <id>', description: 'only this account\'s keys (an unknown id is an error)' }],
    examples: ['sawt keys list --account ACCOUNT_ID'],
  },
  { path: 'keys revoke', summary: 'Revoke a key (it stays listed as revoked)', options: [{ flags: '--id <key-id>', description: 'the key\'s id', required: true }], examples: ['sawt keys revoke --id KEY_ID'] },
  { path: 'keys delete', summary: 'Delete a key', options: [{ flags: '--id <key-id>', description: 'the key\'s id', required: true }], examples: ['sawt keys delete --id KEY_ID'] },
  {
    path: 'voices list', summary: 'List cloned voices (every account\'s without --account); with --model, every voice that speaks on that model (built-in personas, then cloned voices)',
    options: [
      { flags: '--account <id>', description: 'only this account\'s cloned voices (an unknown id is an error)' },
      { flags: '--model <model-id>', description: 'the voices of this model, built-in ones included, each with the models it speaks on (as GET /voices?model_id=)' },
    ],
    examples: ['sawt voices list --account ACCOUNT_ID', 'sawt voices list --model sawt-hts'],
  },
  { path: 'voices delete', summary: 'Delete a cloned voice: its record and stored files', options: [{ flags: '--id <voice-id>', description: 'the voice_id (cv_…)', required: true }], examples: ['sawt voices delete --id cv_0123abcd'] },
  {
    path: 'wallet topup', summary: 'Add money to an account\'s wallet',
    options: [account(), { flags: '--amount <amount>', description: 'a decimal amount greater than zero', required: true }],
    examples: ['sawt wallet topup --account ACCOUNT_ID --amount 25.50'],
  },
  { path: 'wallet show', summary: 'Balance, reserved and available amounts', options: [account()], examples: ['sawt wallet show --account ACCOUNT_ID --json'] },
  {
    path: 'wallet ledger', summary: 'The account\'s latest money movements, oldest first',
    options: [account(), { flags: '--limit <n>', description: 'how many (1 to 100000, default 100)' }],
    examples: ['sawt wallet ledger --account ACCOUNT_ID --limit 20'],
  },
  { path: 'models list', summary: 'The catalog: model_id, engine, cost per character, access, availability', examples: ['sawt models list --json'] },
  {
    path: 'models grant', summary: 'Enable a model whose access is "granted" for an account',
    options: [account(), { flags: '--model <model-id>', description: 'the model\'s model_id', required: true }],
    examples: ['sawt models grant --account ACCOUNT_ID --model sawt-hts'],
  },
  {
    path: 'models pull', summary: 'Download the catalog\'s model files into SAWT_MODELS_DIR (sha256-checked, resumable, never a partial file in place)',
    args: { spec: '[names...]', description: 'model_ids or \'diacritizer\' (default: all)' },
    options: [{ flags: '--force', description: 'replace a file whose sha256 differs from the catalog\'s' }],
    examples: ['sawt models pull', 'sawt models pull sawt-hts diacritizer --json'],
  },
  { path: 'models verify', summary: 'Check every installed model file against its sha256', examples: ['sawt models verify'] },
  ...(['normalize', 'diacritize', 'phonemize'] as TextStageName[]).map((stage): CommandSpec => ({
    path: `text ${stage}`,
    summary: {
      normalize: 'Print the text as the front end normalizes it (numbers, dates, currency, abbreviations spelled out)',
      diacritize: 'Print the normalized text with diacritics added',
      phonemize: 'Print espeak-ng phoneme codes after the dialect\'s rules',
    }[stage as 'normalize'],
    args: { spec: '[text...]', description: 'the text (or --file)' },
    options: [
      { flags: '--file <path>', description: 'one output line per input line (- reads stdin)' },
      { flags: '--dialect <dialect>', description: `dialect rules: ${DIALECTS}` },
      { flags: '--model <model-id>', description: 'phonemize: that model\'s phones (sawt-hts: the HTS voice\'s phone names)' },
      { flags: '--ssml', description: 'read each text as SSML (text_type "ssml"): the stage runs on what is spoken; breaks, marks, prosody and language are shown as markup' },
      { flags: '--dictionary <file>', description: 'apply a pronunciation dictionary file first: PLS 1.0, or JSON {"rules": [...]} as POST /pronunciation-dictionaries takes' },
    ],
    examples: [`sawt text ${stage} "ذهب الولد إلى المدرسة في 3 مارس"`, `sawt text ${stage} --file corpus.txt --dialect egyptian --json`, `sawt text ${stage} --ssml '<speak>مرحبا <break time="500ms"/> بكم في <say-as interpret-as="telephone">0551234567</say-as></speak>'`, `sawt text ${stage} --dictionary names.pls "زار الوفد الرياض أمس"`],
    run: { action: (input) => textCommand(stage, input) },
  })),
  {
    path: 'say', summary: 'Speak TEXT: in this process (no server needed), or through a server\'s API with --server',
    args: { spec: '[text...]', description: 'the text to speak' },
    options: [
      { flags: '--model <model-id>', description: 'model (default: the catalog\'s default, sawt-mini)' },
      { flags: '--voice <voice-id>', description: 'voice (default: the model\'s first voice of --dialect)' },
      { flags: '--dialect <dialect>', description: `pick a voice of this dialect: ${DIALECTS} (default fusha)` },
      { flags: '--speed <n>', description: '0.7 to 1.2 (default 1.0)' },
      { flags: '--out <file>', description: 'write a file: WAV, or with --file any of .mp3 .ogg .opus .flac .wav (by extension); else WAV on a redirected stdout, or played through ffplay/aplay' },
      { flags: '--server <url>', description: 'a running Sawt, e.g. http://127.0.0.1:8080' },
      { flags: '--key <key>', description: 'an API key of that server' },
      { flags: '--file <file>', description: 'speak a UTF-8 text file in-process, paragraph by paragraph, into one --out file whose format is its extension (.mp3, .ogg/.opus, .flac, .wav); a progress line on a terminal' },
      { flags: '--json', description: 'with --file: no progress line; print one JSON summary' },
    ],
    examples: ['sawt say "مرحبا بكم في خدمة صوت"', 'sawt say --file book.txt --out book.mp3', 'sawt say "أهلا وسهلا بكم جميعا" --dialect egyptian --out hello.wav', 'sawt say "مرحبا بكم في خدمة صوت" --server http://127.0.0.1:8080 --key $KEY > hello.wav'],
    json: false,
    run: {
      action: async ({ values, positionals }) => {
        const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
        const speed = str('speed');
        if (speed !== undefined && !/^\d+(\.\d+)?$/.test(speed.trim())) throw new UsageError(`--speed must be a number between 0.7 and 1.2 but received ${JSON.stringify(speed)}`);
        await say({ text: positionals.join(' '), model: str('model'), voice: str('voice'), dialect: str('dialect'), out: str('out'), server: str('server'), key: str('key'), speed: speed === undefined ? undefined : Number(speed), file: str('file'), json: values.json === true });
      },
    },
  },
  ...JOBS_COMMANDS,
];

/** commander's options of a command, back to the long names the handlers read ('expires-at', 'json'). */
function toFlags(cmd: Command): Flags {
  const opts = cmd.opts();
  const values: Flags = {};
  for (const o of cmd.options as Option[]) {
    const v = opts[o.attributeName()];
    if (v !== undefined) values[o.long!.replace(/^--/, '')] = v as string | boolean;
  }
  return values;
}

function examples(list: string[]): string {
  return `\nExample${list.length > 1 ? 's' : ''}:\n${list.map((e) => `  $ ${e}`).join('\n')}\n`;
}

/** The `sawt` program: one commander command per spec, groups printing their help when called alone. */
export function buildProgram(out: { stdout: (s: string) => void; stderr: (s: string) => void }): { program: Command; exitCode: () => number } {
  let exitCode = 0;
  const program = new Command('sawt')
    .description('Sawt: self-hostable Arabic voice synthesis. Admin commands work on the same data dir (SAWT_DATA_DIR) and config (SAWT_CONFIG) as the server, also while it runs.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'print help (every command has its own --help)')
    .exitOverride()
    .configureOutput({ writeOut: out.stdout, writeErr: out.stdout, outputError: () => {} })
    .showSuggestionAfterError(true)
    .addHelpText('after', examples(['sawt serve', 'sawt accounts create --name "Acme" --plan starter --balance 10 --json', 'sawt keys --help']))
    .addHelpCommand(false);
  const groups = new Map<string, Command>();
  for (const spec of SPECS) {
    const parts = spec.path.split(' ');
    let parent = program;
    if (parts.length === 2) {
      const name = parts[0]!;
      let g = groups.get(name);
      if (!g) {
        g = program.command(name).description(GROUPS[name] ?? name).addHelpCommand(false);
        g.addHelpText('after', () => examples([`sawt ${name} ${g!.commands[0]?.name() ?? ''} --help`]));
        groups.set(name, g);
      }
      parent = g;
    }
    const cmd = parent.command(parts[parts.length - 1]!).description(spec.summary);
    if (spec.args) cmd.argument(spec.args.spec, spec.args.description);
    for (const o of spec.options ?? []) {
      if (o.required) cmd.requiredOption(o.flags, o.description);
      else cmd.option(o.flags, o.description);
    }
    if (spec.json !== false) cmd.option('--json', parts[0] === 'text' ? 'print one JSON object per output ({"input", "output"}, with "line" for --file)' : 'print exactly one JSON value');
    cmd.addHelpText('after', examples(spec.examples));
    cmd.action(async (...received: unknown[]) => {
      const c = received[received.length - 1] as Command;
      const input: CommandInput = { values: toFlags(c), positionals: spec.args ? ((received[0] as string[] | undefined) ?? []) : [] };
      const run = spec.run ?? { handler: commands[spec.path]! };
      if ('handler' in run) {
        const result = await run.handler(input);
        out.stdout(input.values.json === true ? `${JSON.stringify(result.json)}\n` : `${result.text}\n`);
        if (result.failure) throw new Error(result.failure); // the work was done, some of it failed: exit 1
      } else {
        const code = await run.action(input);
        if (typeof code === 'number') exitCode = code;
      }
    });
  }
  return { program, exitCode: () => exitCode };
}

/** Runs `sawt ARGV`: exit 0 done (or help, version), 1 failed, 2 usage error; a failure prints one line on stderr. */
export async function main(argv: string[], out = { stdout: (s: string) => void process.stdout.write(s), stderr: (s: string) => void process.stderr.write(s) }): Promise<number> {
  const { program, exitCode } = buildProgram(out);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode();
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return 0;
      // A group (or sawt) without a command: its help went to stdout; bare `sawt` keeps exit 1.
      if (e.code === 'commander.help') return argv.length === 0 ? 1 : 0;
      out.stderr(`sawt: ${printable(e.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' '))}\n`);
      return 2;
    }
    out.stderr(`sawt: ${printable((e as Error).message)}\n`);
    return e instanceof UsageError ? 2 : 1;
  }
}
