import cluster from 'node:cluster';

/** What `sawt serve` prints on stderr (stdout is the JSON log) once it listens: address, account, key, a request. */
export function nextSteps(address: { host: string; port: number }, opts: { workers?: number; env?: NodeJS.ProcessEnv } = {}): string {
  const env = opts.env ?? process.env;
  // A wildcard address is reached locally through loopback.
  const host = address.host === '0.0.0.0' || address.host === '::' || address.host === '' ? '127.0.0.1' : address.host;
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  // The admin commands must find the same database: the variables that choose it, as set here.
  const same = ['SAWT_DATA_DIR', 'SAWT_CONFIG'].filter((k) => env[k]).map((k) => `${k}=${shellQuote(env[k]!)} `).join('');
  const more = env.SAWT_DATABASE_URL ? ' (with the same SAWT_DATABASE_URL)' : '';
  const body = JSON.stringify({ voice_id: 'fusha-ziad', text: 'مرحبا بكم في خدمة صوت للنطق العربي.', stability: 0.5, streaming: false });
  return `
Sawt is listening on ${base}${opts.workers && opts.workers > 1 ? ` (${opts.workers} workers)` : ''}.

Next steps, in another terminal in this directory${more}:
  1. An account and an API key (the key is shown once):
       ${same}npx sawt accounts create --name "Me" --plan starter --balance 10 --json
       ${same}npx sawt keys create --account ACCOUNT_ID --json
  2. Speech, with KEY set to that key:
       curl -s ${base}/api/v1/text-to-speech/sawt-hts -H "x-api-key: $KEY" -H 'content-type: application/json' \\
         -d '${body}' -o hello.wav
  3. API reference: ${base}/docs
     Playground:    ${base}/playground

`;
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/** In the primary of `sawt serve --workers N`: prints the next steps once, when all N workers first listen. */
export function announceWhenListening(workers: number, print: (text: string) => void = (s) => void process.stderr.write(s)): () => void {
  let listening = 0;
  const onListening = (_worker: unknown, address: { address?: string | null; port: number }) => {
    if (++listening !== workers) return;
    print(nextSteps({ host: address.address || process.env.SAWT_HOST || '127.0.0.1', port: address.port }, { workers }));
  };
  cluster.on('listening', onListening);
  return () => cluster.off('listening', onListening);
}
