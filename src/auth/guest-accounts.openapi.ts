import type { OpenAPIObject } from '@nestjs/swagger';

/**
 * The bound on the guest accounts an address makes, on the route that makes them: in its description,
 * and beside RATE_LIMITED in its 429 (documentRateLimits writes that first). By the settings' names:
 * the test suites run without the bound, and the document must not differ with it.
 */
export function documentGuestAccountLimit(document: OpenAPIObject): void {
  type Operation = { description?: string; responses?: Record<string, { description?: string }> };
  const signIn = (document.paths['/auth/device'] as Record<string, Operation> | undefined)?.post;
  if (!signIn) return;
  signIn.description =
    `${signIn.description ?? ''} One client address (an IPv6 address by its /64) makes at most GUEST_ACCOUNTS_PER_ADDRESS guest ` +
    'accounts a GUEST_ACCOUNT_WINDOW (a UTC day by default); a device that has an account signs in whatever the count.';
  const tooMany = signIn.responses?.['429'];
  if (tooMany) {
    tooMany.description =
      `${tooMany.description ?? ''} GUEST_ACCOUNT_LIMIT: this address has made its guest accounts of the window (` +
      '`limit` says how many); `Retry-After` is when the next window begins.';
  }
}
