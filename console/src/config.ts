/** How this console signs in, as the service wrote it into the page (src/console/console-config.ts). */
export type ConsoleConfig =
  | { signIn: 'development' }
  | { signIn: 'oidc'; issuer: string; clientId: string; redirectUri: string | null; audience: string | null }
  | { signIn: 'unavailable'; reason: string };

export function readConfig(): ConsoleConfig {
  const content = document.querySelector('meta[name="console-config"]')?.getAttribute('content');
  try {
    return JSON.parse(content ?? '') as ConsoleConfig;
  } catch {
    return { signIn: 'unavailable', reason: 'the page has no configuration: open it from the service (/console)' };
  }
}
