import { rm } from 'node:fs/promises';

export default async function globalTeardown() {
  const { database, root } = globalThis.__testDatabase ?? {};
  await database?.stop();
  if (root) await rm(root, { recursive: true, force: true });
}
