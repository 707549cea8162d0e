import { randomUUID } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * The text of `file`, made by `make` and written the first time it is asked for, by whichever of
 * several callers (in this process or another) gets there first; every caller gets the same text. The
 * text is written to a draft of its own and linked into place: a link is atomic and refuses an
 * existing name, so nobody ever reads the file before its text is whole. (`writeFile` with the `wx`
 * flag, which this replaces, creates the file empty and writes it after: a second caller could read it
 * empty in between, and the service then signed its tokens with an empty key.)
 */
export async function createFileOnce(file: string, make: () => string | Promise<string>, mode = 0o600): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const text = await make();
  await mkdir(dirname(file), { recursive: true });
  const draft = `${file}.${randomUUID()}.draft`;
  await writeFile(draft, text, { flag: 'wx', mode });
  try {
    await link(draft, file);
    return text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return await readFile(file, 'utf8');
  } finally {
    await unlink(draft);
  }
}
