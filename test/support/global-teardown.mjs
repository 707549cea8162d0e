import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

export default async function globalTeardown() {
  const { database, root } = globalThis.__testDatabase ?? {};
  // The answers test/support/contract.ts checked against the OpenAPI document, one line per test app.
  const tally = await readFile(join(root ?? '.', 'contract-checks.txt'), 'utf8').catch(() => '');
  const checked = tally.split('\n').reduce((sum, line) => sum + (Number(line) || 0), 0);
  if (checked > 0) console.log(`\nOpenAPI contract: ${checked} answers checked against the document (test/support/contract.ts).`);
  await database?.stop();
  if (root) await rm(root, { recursive: true, force: true });
}
