import { api, ApiError, must, useTokenSource } from './api.js';
import type { ConsoleConfig } from './config.js';

/**
 * The admin's session: our token and refresh token live in this module only (never in storage, so a
 * script injected elsewhere on the origin finds nothing to steal after a reload), renewed a minute
 * before the token expires. Only admins get past sign-in: the console asks an admin-only route.
 */
interface Session {
  token: string;
  refreshToken: string;
  expiresAt: number;
  subject: string;
}

let session: Session | undefined;
let refreshing: Promise<void> | undefined;
const listeners = new Set<() => void>();

export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function signedInAs(): string | undefined {
  return session?.subject;
}

function setSession(next: Session | undefined): void {
  session = next;
  for (const listener of listeners) listener();
}

async function refresh(): Promise<void> {
  const current = session;
  if (!current) return;
  try {
    const answer = await must(api.POST('/auth/refresh', { body: { refreshToken: current.refreshToken } }));
    setSession({ ...current, token: answer.token, refreshToken: answer.refreshToken, expiresAt: Date.now() + answer.expiresIn * 1000 });
  } catch {
    setSession(undefined);
  }
}

useTokenSource(async () => {
  if (session && session.expiresAt - Date.now() < 60_000) {
    refreshing ??= refresh().finally(() => (refreshing = undefined));
    await refreshing;
  }
  return session?.token;
});

/**
 * Trades a provider token for ours, then makes sure the account is an admin's before the console
 * shows anything (the session is used for that one check, unannounced).
 */
async function exchange(providerToken: string, subject: string): Promise<void> {
  const answer = await must(api.GET('/auth/idp1', { headers: { authorization: `jwt ${providerToken}` } }));
  session = { token: answer.token, refreshToken: answer.refreshToken, expiresAt: Date.now() + answer.expiresIn * 1000, subject };
  try {
    await must(api.GET('/admin/stats'));
  } catch (error) {
    await signOut();
    if (error instanceof ApiError && error.status === 403)
      throw new ApiError(403, 'FORBIDDEN', `${subject} is not an admin: the console is for admins only`, null);
    throw error;
  }
  setSession(session);
}

/** Development: any subject of the built-in provider (`admin` is an admin). */
export async function signInAsSubject(subject: string): Promise<void> {
  const { token } = await must(api.POST('/auth/dev-token', { body: { subject } }));
  await exchange(token, subject);
}

export async function signOut(): Promise<void> {
  if (session) await api.POST('/auth/logout').catch(() => undefined);
  setSession(undefined);
}

const PKCE_KEY = 'console-pkce';

function base64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

interface Discovery {
  authorization_endpoint: string;
  token_endpoint: string;
}

async function discover(issuer: string): Promise<Discovery> {
  const response = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`the identity provider's discovery document answered ${response.status}`);
  return (await response.json()) as Discovery;
}

function redirectUri(config: Extract<ConsoleConfig, { signIn: 'oidc' }>): string {
  return config.redirectUri ?? `${location.origin}/console/callback`;
}

/**
 * Production: the authorization code flow with PKCE (RFC 7636). The verifier and state wait in
 * sessionStorage across the provider's redirect (this tab only); neither is worth anything without
 * the provider's code, and both are removed on return.
 */
export async function startOidcSignIn(config: Extract<ConsoleConfig, { signIn: 'oidc' }>, returnTo: string): Promise<void> {
  const discovery = await discover(config.issuer);
  const verifier = base64Url(crypto.getRandomValues(new Uint8Array(32)));
  const state = base64Url(crypto.getRandomValues(new Uint8Array(16)));
  const challenge = base64Url(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))));
  sessionStorage.setItem(PKCE_KEY, JSON.stringify({ verifier, state, returnTo }));
  const url = new URL(discovery.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: config.clientId,
    redirect_uri: redirectUri(config),
    scope: 'openid profile',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(config.audience ? { audience: config.audience } : {}),
  }).toString();
  location.assign(url.toString());
}

/** Back from the provider: the code for its tokens, its token for ours. Answers where to go next. */
export async function finishOidcSignIn(config: Extract<ConsoleConfig, { signIn: 'oidc' }>): Promise<string> {
  const saved = JSON.parse(sessionStorage.getItem(PKCE_KEY) ?? 'null') as { verifier: string; state: string; returnTo: string } | null;
  sessionStorage.removeItem(PKCE_KEY);
  const params = new URLSearchParams(location.search);
  if (params.get('error')) throw new Error(`the identity provider refused: ${params.get('error_description') ?? params.get('error')}`);
  if (!saved || params.get('state') !== saved.state) throw new Error('this sign-in was not started here (state mismatch): sign in again');
  const discovery = await discover(config.issuer);
  const response = await fetch(discovery.token_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.get('code') ?? '',
      redirect_uri: redirectUri(config),
      client_id: config.clientId,
      code_verifier: saved.verifier,
    }),
  });
  if (!response.ok) throw new Error(`the identity provider's token endpoint answered ${response.status}`);
  const tokens = (await response.json()) as { access_token?: string; id_token?: string };
  const providerToken = tokens.access_token ?? tokens.id_token;
  if (!providerToken) throw new Error('the identity provider gave no token');
  const claims = JSON.parse(atob(providerToken.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) as {
    sub?: string;
    preferred_username?: string;
  };
  await exchange(providerToken, claims.preferred_username ?? claims.sub ?? 'admin');
  return saved.returnTo;
}
