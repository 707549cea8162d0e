import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOrCreateDevJwtSecret } from './dev-jwt-secret.js';

describe('the development JWT secret', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'dev-jwt-secret-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  // A fresh DATA_DIR's first start asks twice at once (the token signer and the device ids). With the
  // file created empty and written after, one of them could read it empty and sign with an empty key:
  // the tokens of that run were refused (401) once the service restarted with the secret kept.
  it('is the same whole secret for every caller on a fresh DATA_DIR, and after a restart', async () => {
    for (let round = 0; round < 200; round++) {
      const folder = join(dataDir, String(round));
      const secrets = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateDevJwtSecret(folder)));
      expect(new Set(secrets).size).toBe(1);
      expect(secrets[0]).toMatch(/^[\w-]{64}$/);
      expect(await loadOrCreateDevJwtSecret(folder)).toBe(secrets[0]);
      // Nothing left beside it.
      expect(await readdir(folder)).toEqual(['dev-jwt-secret']);
    }
  });

  it('refuses a kept secret that was cut short, naming the file', async () => {
    await writeFile(join(dataDir, 'dev-jwt-secret'), '');
    await expect(loadOrCreateDevJwtSecret(dataDir)).rejects.toThrow(`${join(dataDir, 'dev-jwt-secret')} holds no usable secret`);
  });
});
