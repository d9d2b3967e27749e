#!/bin/sh
":" //; self="$(readlink -f "$0")"; d="$(dirname "$self")"; n="$d/../../../.node/bin"; if [ -x "$n/node" ]; then PATH="$(cd "$n" && pwd):$PATH"; export PATH; fi; exec node $(sh "$d/node-flags.sh") "$self" "$@"
// Run as a program (npx sawt, the bin's link), the line above is shell: it replaces itself (the
// same process) with Node and the options of node-flags.sh. To Node it is a string and a comment.
// The Node is the project's own (.node/bin, put first on the PATH) when scripts/setup.sh
// installed one because the machine's was older than 22, whatever the caller's PATH.
import { main } from '../dist/index.js';

// A reader that went away (sawt … | head) ends the output quietly.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`sawt: ${err?.message ?? err}\n`);
    process.exitCode = 1;
  },
);
