import { type HeldIdentity, linkVerdict, unlinkPlan } from './identity.rules.js';

const identity = (provider: string, subject: string): HeldIdentity => ({ uid: `${provider}-${subject}`, provider, subject });

describe('linkVerdict', () => {
  const held = [identity('device', 'phone'), identity('idp1', 'alice')];

  it('links a new device or a provider the account lacks', () => {
    expect(linkVerdict(held, { provider: 'device', subject: 'tablet' }, 10)).toBe('link');
    expect(linkVerdict(held, { provider: 'idp2', subject: 'alice@idp2' }, 10)).toBe('link');
  });

  it('has nothing to do for an identity the account holds already', () => {
    expect(linkVerdict(held, { provider: 'device', subject: 'phone' }, 10)).toBe('already-linked');
    expect(linkVerdict(held, { provider: 'idp1', subject: 'alice' }, 10)).toBe('already-linked');
  });

  it('keeps one identity per provider, and at most devicesPerUser devices', () => {
    expect(linkVerdict(held, { provider: 'idp1', subject: 'bob' }, 10)).toBe('provider-taken');
    expect(linkVerdict(held, { provider: 'device', subject: 'tablet' }, 1)).toBe('too-many-devices');
    expect(linkVerdict(held, { provider: 'device', subject: 'phone' }, 1)).toBe('already-linked');
  });
});

describe('unlinkPlan', () => {
  const phone = identity('device', 'phone');
  const tablet = identity('device', 'tablet');
  const alice = identity('idp1', 'alice');

  it('removes the one device named, every device, or the provider identity', () => {
    expect(unlinkPlan([phone, tablet, alice], 'device', 'tablet')).toEqual({ remove: [tablet] });
    expect(unlinkPlan([phone, tablet, alice], 'device')).toEqual({ remove: [phone, tablet] });
    expect(unlinkPlan([phone, alice], 'idp1')).toEqual({ remove: [alice] });
  });

  it('finds nothing to remove for an identity the account lacks', () => {
    expect(unlinkPlan([phone, alice], 'idp2')).toBe('none');
    expect(unlinkPlan([phone, alice], 'device', 'tablet')).toBe('none');
  });

  it('never leaves the account without a way to sign in', () => {
    expect(unlinkPlan([alice], 'idp1')).toBe('last');
    expect(unlinkPlan([phone], 'device', 'phone')).toBe('last');
    expect(unlinkPlan([phone, tablet], 'device')).toBe('last');
    expect(unlinkPlan([phone, tablet], 'device', 'phone')).toEqual({ remove: [phone] });
  });
});
