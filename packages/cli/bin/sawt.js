#!/usr/bin/env node
import { main } from '../dist/index.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`sawt: ${err?.message ?? err}\n`);
    process.exitCode = 1;
  },
);
