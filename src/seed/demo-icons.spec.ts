import { inflateSync } from 'node:zlib';
import { demoIcon } from './demo-icons.js';

describe('demoIcon', () => {
  it('draws a PNG of the asked size, the same bytes for the same slug', () => {
    const icon = demoIcon('items/iron-sword', 64);
    expect(icon.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
    expect(icon.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect([icon.readUInt32BE(16), icon.readUInt32BE(20)]).toEqual([64, 64]);
    expect(demoIcon('items/iron-sword', 64).equals(icon)).toBe(true);
    expect(demoIcon('items/oak-shield', 64).equals(icon)).toBe(false);
    expect(icon.length).toBeLessThan(2048);
  });

  it('holds one filter byte and three bytes per pixel on each row', () => {
    const icon = demoIcon('badges/first-victory', 32);
    const idatLength = icon.readUInt32BE(33);
    expect(icon.subarray(37, 41).toString('latin1')).toBe('IDAT');
    expect(inflateSync(icon.subarray(41, 41 + idatLength)).length).toBe(32 * (1 + 32 * 3));
  });
});
