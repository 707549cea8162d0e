import { createHash, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './support/chromium.js';
import { TestApp } from './support/test-app.js';

const AUDIENCE = 'game';
const CLIENT_ID = 'liveops-console';

/**
 * The production sign-in of the console (docs/CONSOLE.md, "Sign-in") in Chromium: the authorization code
 * flow with PKCE against a small OpenID Connect provider this file starts (discovery, an authorization
 * endpoint that signs its one user in at once, a token endpoint that checks the code verifier, keys),
 * then our token renewed by the console itself (JWT_TTL at its minimum, 60 s: every request finds the
 * token within a minute of expiry and refreshes it first).
 */
class OidcProvider {
  readonly authorizations: Array<Record<string, string>> = [];
  readonly refusals: string[] = [];
  tokensIssued = 0;
  private readonly codes = new Map<string, { challenge: string; redirectUri: string; clientId: string }>();

  private constructor(
    private readonly server: Server,
    private readonly key: CryptoKey,
    private readonly jwk: JWK,
    readonly subject: string,
  ) {}

  static async start(subject: string): Promise<OidcProvider> {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'oidc-1', alg: 'RS256', use: 'sig' };
    const server = createServer();
    const provider = new OidcProvider(server, privateKey, jwk, subject);
    server.on('request', (request, response) => void provider.answer(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return provider;
  }

  get issuer(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private json(response: ServerResponse, status: number, body: unknown): void {
    // The console calls discovery and the token endpoint from the page: a provider answers them with CORS.
    response.writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*' }).end(JSON.stringify(body));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.issuer);
    if (url.pathname === '/.well-known/openid-configuration') {
      return this.json(response, 200, {
        issuer: this.issuer,
        authorization_endpoint: `${this.issuer}/authorize`,
        token_endpoint: `${this.issuer}/token`,
        jwks_uri: `${this.issuer}/jwks`,
        code_challenge_methods_supported: ['S256'],
      });
    }
    if (url.pathname === '/jwks') return this.json(response, 200, { keys: [this.jwk] });
    if (url.pathname === '/authorize') {
      const params = Object.fromEntries(url.searchParams);
      this.authorizations.push(params);
      const code = randomUUID();
      this.codes.set(code, { challenge: params.code_challenge, redirectUri: params.redirect_uri, clientId: params.client_id });
      const back = new URL(params.redirect_uri);
      back.search = new URLSearchParams({ code, state: params.state }).toString();
      response.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (url.pathname === '/token' && request.method === 'POST') {
      let text = '';
      for await (const chunk of request) text += String(chunk);
      const form = new URLSearchParams(text);
      const grant = this.codes.get(form.get('code') ?? '');
      this.codes.delete(form.get('code') ?? '');
      const verifier = form.get('code_verifier') ?? '';
      const refusal = !grant
        ? 'unknown or used code'
        : form.get('grant_type') !== 'authorization_code'
          ? 'grant_type'
          : form.get('client_id') !== grant.clientId || form.get('redirect_uri') !== grant.redirectUri
            ? 'client or redirect differs'
            : createHash('sha256').update(verifier).digest('base64url') !== grant.challenge
              ? 'code_verifier does not match the challenge'
              : undefined;
      if (refusal) {
        this.refusals.push(refusal);
        return this.json(response, 400, { error: 'invalid_grant', error_description: refusal });
      }
      this.tokensIssued++;
      const token = await new SignJWT({ preferred_username: this.subject })
        .setProtectedHeader({ alg: 'RS256', kid: 'oidc-1' })
        .setIssuer(this.issuer)
        .setAudience(AUDIENCE)
        .setSubject(this.subject)
        .setIssuedAt()
        .setExpirationTime('5m')
        .sign(this.key);
      return this.json(response, 200, { access_token: token, id_token: token, token_type: 'Bearer', expires_in: 300 });
    }
    response.writeHead(404).end();
  }
}

describe('the LiveOps console signed in through OpenID Connect', () => {
  let provider: OidcProvider;
  let api: TestApp;
  let baseUrl: string;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    execFileSync(
      process.execPath,
      [join(process.cwd(), 'node_modules', 'vite', 'bin', 'vite.js'), 'build', 'console', '--logLevel', 'error'],
      { stdio: 'inherit' },
    );
    provider = await OidcProvider.start('oidc-admin');
    api = await TestApp.start({
      IDP1_ISSUER: provider.issuer,
      IDP1_JWKS_URL: `${provider.issuer}/jwks`,
      IDP1_AUDIENCE: AUDIENCE,
      CONSOLE_OIDC_CLIENT_ID: CLIENT_ID,
      ADMIN_USERS: 'idp1:oidc-admin',
      JWT_TTL: '60',
    });
    await api.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(api.app.getHttpServer().address() as AddressInfo).port}`;
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/the server responded with a status of 4\d\d/.test(message.text()))
        pageErrors.push(message.text());
    });
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
    await provider?.close();
  });

  it('signs an admin in with the code flow and PKCE, back on the pasted link, and renews the token by itself', async () => {
    const refreshes: number[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith('/auth/refresh')) refreshes.push(response.status());
    });
    await page.goto(`${baseUrl}/console/players?by=subject&q=oidc-admin`);
    await page.getByRole('button', { name: 'Sign in with your identity provider' }).click();
    await page.getByRole('link', { name: 'idp1:oidc-admin' }).waitFor();
    expect(page.url()).toBe(`${baseUrl}/console/players?by=subject&q=oidc-admin`);

    const [authorization] = provider.authorizations;
    expect(authorization).toMatchObject({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: `${baseUrl}/console/callback`,
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      state: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    });
    expect({ tokensIssued: provider.tokensIssued, refusals: provider.refusals }).toEqual({ tokensIssued: 1, refusals: [] });

    // Each request finds a token within a minute of its expiry: the console renews it first, each time with the new refresh token.
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByText('sign-ins a minute').waitFor();
    await page.getByRole('link', { name: 'Audit' }).click();
    await page.getByRole('heading', { name: 'Admin audit' }).waitFor();
    expect(refreshes.length).toBeGreaterThanOrEqual(2);
    expect(refreshes.every((status) => status === 200)).toBe(true);
    await expect(page.getByRole('button', { name: /Sign out oidc-admin/ }).isVisible()).resolves.toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
