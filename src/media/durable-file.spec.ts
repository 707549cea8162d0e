import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DurableFile } from './durable-file.js';

describe('DurableFile', () => {
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), 'durable-file-'));
  });

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it('writes every chunk, and frees disposable ones once written', async () => {
    const chunks = [randomBytes(65_536), Buffer.alloc(1_000, 7)];
    const copies = chunks.map((chunk) => Buffer.from(chunk));
    await pipeline(Readable.from(chunks), new DurableFile(join(folder, 'disposable'), 'disposable'));

    expect(await readFile(join(folder, 'disposable'))).toEqual(Buffer.concat(copies));
    expect(chunks.map((chunk) => chunk.buffer.byteLength)).toEqual([0, 0]);
  });

  it('leaves shared chunks, and slices of a larger buffer, as they were', async () => {
    const whole = Buffer.alloc(4_096, 7);
    const slice = Buffer.from(randomBytes(8_192).buffer, 0, 2_048);
    const copies = [Buffer.from(whole), Buffer.from(slice)];
    await pipeline(Readable.from([whole]), new DurableFile(join(folder, 'shared'), 'shared'));
    await pipeline(Readable.from([slice]), new DurableFile(join(folder, 'slice'), 'disposable'));

    expect([whole, slice]).toEqual(copies);
    expect(await readFile(join(folder, 'slice'))).toEqual(copies[1]);
  });

  it('never writes over a file that is already there', async () => {
    await writeFile(join(folder, 'taken'), 'kept');
    await expect(pipeline(Readable.from([Buffer.from('new')]), new DurableFile(join(folder, 'taken'), 'shared'))).rejects.toMatchObject({
      code: 'EEXIST',
    });
    expect(await readFile(join(folder, 'taken'), 'utf8')).toBe('kept');
  });
});
