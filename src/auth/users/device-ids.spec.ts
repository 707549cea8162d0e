import { DeviceIds } from './device-ids.js';

describe('DeviceIds', () => {
  const jwtSecret = 'j'.repeat(40);

  it('stores the same id as the same hash, other ids and other keys as others, and never the id itself', () => {
    const ids = DeviceIds.fromSecrets(undefined, jwtSecret);
    const id = 'c0ffee00-1234-4abc-8def-0123456789ab';
    const subject = ids.subjectOf(id);
    expect(subject).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(subject).not.toContain(id);
    expect(DeviceIds.fromSecrets(undefined, jwtSecret).subjectOf(id)).toBe(subject);
    expect(ids.subjectOf(`${id}0`)).not.toBe(subject);
    expect(DeviceIds.fromSecrets(undefined, 'k'.repeat(40)).subjectOf(id)).not.toBe(subject);
    expect(DeviceIds.fromSecrets('d'.repeat(32), jwtSecret).subjectOf(id)).not.toBe(subject);
  });

  it('keys with DEVICE_ID_KEY when set, whatever the JWT secret', () => {
    const id = 'a-device-id-of-sixteen+';
    expect(DeviceIds.fromSecrets('d'.repeat(32), jwtSecret).subjectOf(id)).toBe(
      DeviceIds.fromSecrets('d'.repeat(32), 'x'.repeat(40)).subjectOf(id),
    );
  });
});

describe('DeviceIds.identityOf', () => {
  it('is the device identity of the id, or a 403 where device ids are turned off', () => {
    const id = 'a-device-id-of-sixteen+';
    expect(DeviceIds.fromSecrets(undefined, 'j'.repeat(40)).identityOf(id)).toEqual({
      provider: 'device',
      subject: DeviceIds.fromSecrets(undefined, 'j'.repeat(40)).subjectOf(id),
    });
    expect(() => DeviceIds.fromSecrets(undefined, 'j'.repeat(40), false).identityOf(id)).toThrow(/DEVICE_AUTH_ENABLED=false/);
  });
});
