import { type RefreshFacts, refreshVerdict } from './refresh.rules.js';

const fresh: RefreshFacts = { banned: false, revoked: false, expired: false, spent: false, spentRecently: false };

describe('refreshVerdict', () => {
  it('rotates an unspent token of a live session', () => {
    expect(refreshVerdict(fresh)).toBe('rotate');
  });

  it('calls a token spent within the grace a concurrent refresh, and one spent before it a replay', () => {
    expect(refreshVerdict({ ...fresh, spent: true, spentRecently: true })).toBe('concurrent');
    expect(refreshVerdict({ ...fresh, spent: true })).toBe('replay');
  });

  it('refuses a banned user first, whatever the token', () => {
    expect(refreshVerdict({ ...fresh, banned: true, revoked: true, spent: true })).toBe('banned');
  });

  it('does not revoke again a session already over: a replay there is just a revoked or expired session', () => {
    expect(refreshVerdict({ ...fresh, revoked: true, spent: true })).toBe('revoked');
    expect(refreshVerdict({ ...fresh, expired: true, spent: true })).toBe('expired');
  });
});
