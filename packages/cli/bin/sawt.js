#!/usr/bin/env node
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
