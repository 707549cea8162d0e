import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';

/**
 * The demo catalog's icons, drawn here rather than shipped as files: a square PNG per artwork, its
 * colours taken from the slug's hash, a frame and a diagonal across, so that every icon is distinct,
 * the same on every run (the same bytes, the same digest), and a few hundred bytes.
 */
export function demoIcon(slug: string, size: number): Buffer {
  const hash = createHash('sha256').update(slug).digest();
  const background = [hash[0], hash[1], hash[2]];
  const ink = background.map((channel) => 255 - channel);
  const frame = Math.max(1, Math.round(size / 16));
  // Each scanline starts with its filter type (0: none), then RGB triples.
  const pixels = Buffer.alloc(size * (1 + size * 3));
  for (let y = 0; y < size; y++) {
    const row = y * (1 + size * 3);
    for (let x = 0; x < size; x++) {
      const onFrame = x < frame || y < frame || x >= size - frame || y >= size - frame;
      const onDiagonal = Math.abs(x - y) < frame || Math.abs(x + y - (size - 1)) < frame * (hash[3] % 2);
      const colour = onFrame || onDiagonal ? ink : background;
      pixels.set(colour, row + 1 + x * 3);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits per channel, truecolour, deflate, no filter, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const checksum = Buffer.alloc(4);
  checksum.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, checksum]);
}
