// Every client-visible error code of the error table is documented in the README's
// error table with its status, and the OpenAPI Error schema lists it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ERRORS } from '@sawt/core';
import { repoRoot } from '../helpers/server.js';

t.test('README documents every errorCode with its status', async (t) => {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  for (const [name, e] of Object.entries(ERRORS)) {
    const row = readme.split('\n').find((l) => l.startsWith(`| ${e.code} |`));
    t.ok(row, `${name}: a row for ${e.code}`);
    t.ok(row?.split('|')[2].includes(String(e.status)), `${name}: the row names status ${e.status}`);
  }
});
