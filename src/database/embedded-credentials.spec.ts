import { newCredentials, scramVerifier, verifierAccepts } from './embedded-credentials.js';

// What the embedded PostgreSQL stored in pg_authid.rolpassword for `CREATE ROLE … PASSWORD 'pencil'`.
const POSTGRES_VERIFIER =
  'SCRAM-SHA-256$4096:tW/QdQTSLAjNxRhuqk3AOg==$t+XosTZxAtOyF5cAiHjbf8VrtQh2TAc8g2xirBM6PS0=:s0kXzYQpZi/cCTJj35eEwHCJloKHAvbC19Dp/zi9hf8=';

describe('SCRAM verifiers of the embedded PostgreSQL', () => {
  it('are computed as PostgreSQL computes them', () => {
    expect(scramVerifier('pencil', Buffer.from('tW/QdQTSLAjNxRhuqk3AOg==', 'base64'))).toBe(POSTGRES_VERIFIER);
  });

  it('tell whether a stored verifier accepts a password', () => {
    expect(verifierAccepts(POSTGRES_VERIFIER, 'pencil')).toBe(true);
    expect(verifierAccepts(POSTGRES_VERIFIER, 'pencil ')).toBe(false);
    expect(verifierAccepts(scramVerifier('embedded'), 'embedded')).toBe(true);
    // No password, or one stored as MD5 by an older PostgreSQL: set again.
    expect(verifierAccepts(null, 'pencil')).toBe(false);
    expect(verifierAccepts('md5a3556571e93b0d20722ba62be61e8c2d', 'pencil')).toBe(false);
  });

  it('salt each verifier anew, so that equal passwords do not look equal', () => {
    expect(scramVerifier('pencil')).not.toBe(scramVerifier('pencil'));
  });
});

describe('new credentials', () => {
  it('are two different random passwords that fit a URL as they are', () => {
    const first = newCredentials();
    expect(first.superuser.user).toBe('postgres');
    expect(first.service.user).toBe('game_backend');
    expect(first.superuser.password).toMatch(/^[\w-]{43}$/);
    expect(encodeURIComponent(first.service.password)).toBe(first.service.password);
    expect(first.service.password).not.toBe(first.superuser.password);
    expect(newCredentials().superuser.password).not.toBe(first.superuser.password);
  });
});
