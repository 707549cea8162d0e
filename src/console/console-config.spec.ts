import { connectSources, consoleConfig, pageWithConfig } from './console-config.js';

const base = {
  isProduction: false,
  idp1: { jwksUrl: undefined, issuer: undefined, audience: undefined, jwksCooldownSeconds: 30 },
  console: { oidcClientId: undefined, oidcRedirectUri: undefined },
};

describe('the console sign-in configuration', () => {
  it('picks a subject with the development provider, wherever it runs', () => {
    expect(consoleConfig(base)).toEqual({ signIn: 'development' });
    expect(connectSources({ signIn: 'development' })).toEqual([]);
  });

  it('uses idp1 with PKCE once the console has a client id there, and may call the provider', () => {
    const idp1 = {
      jwksUrl: 'https://id.example.com/jwks',
      issuer: 'https://id.example.com/realms/game',
      audience: 'game',
      jwksCooldownSeconds: 30,
    };
    const oidc = consoleConfig({ ...base, isProduction: true, idp1, console: { oidcClientId: 'console', oidcRedirectUri: undefined } });
    expect(oidc).toEqual({ signIn: 'oidc', issuer: idp1.issuer, clientId: 'console', redirectUri: null, audience: 'game' });
    expect(connectSources(oidc)).toEqual(['https://id.example.com']);
    expect(consoleConfig({ ...base, isProduction: true, idp1 })).toEqual({
      signIn: 'unavailable',
      reason: 'CONSOLE_OIDC_CLIENT_ID is not set',
    });
    expect(consoleConfig({ ...base, isProduction: true })).toMatchObject({ signIn: 'unavailable' });
  });

  it('puts the configuration in the page as an attribute no value can break out of', () => {
    const page = pageWithConfig('<meta name="console-config" content="%CONSOLE_CONFIG%">', {
      signIn: 'unavailable',
      reason: '"><script>alert(1)</script>',
    });
    expect(page).not.toContain('<script>');
    expect(page).toContain('&quot;&gt;&lt;script&gt;');
    expect(() => pageWithConfig('<html></html>', { signIn: 'development' })).toThrow(/placeholder/);
  });
});
