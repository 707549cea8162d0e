import { readFileSync } from 'node:fs';

/**
 * The open-files limits of this process (`ulimit -n`, `ulimit -Hn`), which its children inherit: read
 * from /proc on Linux; undefined where the system does not say (Node.js has no call for it). Node.js
 * raises the soft limit to the hard one as it starts, so in the service the two are usually equal.
 */
export function openFilesLimit(): { soft: number; hard: number } | undefined {
  let limits: string;
  try {
    limits = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return undefined;
  }
  const line = /^Max open files\s+(\S+)\s+(\S+)/m.exec(limits);
  if (!line) return undefined;
  const limit = (text: string) => (text === 'unlimited' ? Infinity : Number(text));
  return { soft: limit(line[1]), hard: limit(line[2]) };
}

/** Files kept free of connections by default: the database pools, media files being written or read, logs. */
export const FILES_KEPT_FREE = 1000;

/** The default bound on open connections where the open-files limit cannot be read. */
export const CONNECTIONS_WITHOUT_A_KNOWN_LIMIT = 10_000;

/**
 * HTTP_MAX_CONNECTIONS by default: the soft open-files limit less FILES_KEPT_FREE (at least 100), so
 * that connections alone never exhaust the process's descriptors: past the limit, every `open()`,
 * `accept()` and even `process.memoryUsage.rss()` fails with EMFILE.
 */
export function defaultMaxConnections(): number {
  const soft = openFilesLimit()?.soft;
  if (soft === undefined || !Number.isFinite(soft)) return CONNECTIONS_WITHOUT_A_KNOWN_LIMIT;
  return Math.max(100, soft - FILES_KEPT_FREE);
}
