import { Writable } from 'node:stream';

/** One line of the service's log, as pino writes it. */
export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export const WARN = 40;

/**
 * Everything a test app logs (its request lines and Nest's own logs, through the one pino logger as in
 * production), kept in memory: TestApp.start({ ... }, { logs }) writes here.
 */
export class CapturedLogs {
  readonly lines: string[] = [];
  readonly stream = new Writable({
    write: (chunk: Buffer, _encoding, callback) => {
      this.lines.push(
        ...chunk
          .toString()
          .split('\n')
          .filter((line) => line !== ''),
      );
      callback();
    },
  });

  /** Where the log stands now: pass it to `since` to read only what came after. */
  mark(): number {
    return this.lines.length;
  }

  since(mark: number): LogLine[] {
    return this.lines.slice(mark).map((line) => JSON.parse(line) as LogLine);
  }

  /** Everything logged so far, as written. */
  text(): string {
    return this.lines.join('\n');
  }
}
