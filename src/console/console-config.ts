import type { AppConfig } from '../config/environment.js';

/** How the console signs in, as the page reads it from its `<meta name="console-config">` (console/src/auth). */
export type ConsoleConfig =
  | { signIn: 'development' }
  | { signIn: 'oidc'; issuer: string; clientId: string; redirectUri: string | null; audience: string | null }
  | { signIn: 'unavailable'; reason: string };

/**
 * The development provider's subject picker wherever that provider runs; otherwise idp1's authorization
 * code flow with PKCE, once the console has a client id there. idp2 (introspection) has no browser flow.
 */
export function consoleConfig(config: Pick<AppConfig, 'isProduction' | 'idp1' | 'console'>): ConsoleConfig {
  if (!config.isProduction && !config.idp1.jwksUrl) return { signIn: 'development' };
  if (!config.idp1.issuer) return { signIn: 'unavailable', reason: 'idp1 is not configured (IDP1_ISSUER, IDP1_JWKS_URL)' };
  if (!config.console.oidcClientId) return { signIn: 'unavailable', reason: 'CONSOLE_OIDC_CLIENT_ID is not set' };
  return {
    signIn: 'oidc',
    issuer: config.idp1.issuer,
    clientId: config.console.oidcClientId,
    redirectUri: config.console.oidcRedirectUri ?? null,
    audience: config.idp1.audience ?? null,
  };
}

/** The origins the page may call besides the service: the provider's, for discovery and the token exchange. */
export function connectSources(signIn: ConsoleConfig): string[] {
  return signIn.signIn === 'oidc' ? [new URL(signIn.issuer).origin] : [];
}

/** The page with its configuration in a meta tag (no inline script: the policy allows none). */
export function pageWithConfig(html: string, signIn: ConsoleConfig): string {
  const escaped = JSON.stringify(signIn).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  if (!html.includes('%CONSOLE_CONFIG%'))
    throw new Error('the console page has no %CONSOLE_CONFIG% placeholder: rebuild it (npm run console:build)');
  return html.replace('%CONSOLE_CONFIG%', escaped);
}
