import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module.js';
import { configureApp, createFastifyAdapter } from './app.setup.js';
import { EnvironmentError, parseEnvironment, redactUrl } from './config/environment.js';
import { type EmbeddedDatabase, startEmbeddedPostgres } from './database/embedded-postgres.js';

async function bootstrap(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const environment = parseEnvironment();

  // Without DATABASE_URL the service brings its own PostgreSQL (CONTRACT.md section 8), started
  // before Nest so that the rest of the service sees one kind of database only: a URL.
  let embedded: EmbeddedDatabase | undefined;
  if (!environment.databaseUrl) {
    embedded = await startEmbeddedPostgres({ directory: join(environment.dataDir, 'postgres') });
    process.env.DATABASE_URL = embedded.url;
  }

  let app: NestFastifyApplication;
  try {
    app = await NestFactory.create<NestFastifyApplication>(AppModule, createFastifyAdapter(), {
      bufferLogs: true,
      bodyParser: false,
    });
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const logger = app.get(Logger);
  app.useLogger(logger);
  configureApp(app);
  await app.listen({ port: environment.port, host: environment.host });

  logger.log(
    `listening on http://${environment.host}:${environment.port} (docs at /docs), ` +
      `${environment.isProduction ? 'production' : 'development'} mode, database: ` +
      (embedded ? `embedded PostgreSQL in ${join(environment.dataDir, 'postgres')}` : redactUrl(environment.databaseUrl!)),
    'Bootstrap',
  );

  // Graceful shutdown: stop accepting connections, let in-flight requests finish, close the pool,
  // and only then stop the embedded database under them.
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received: shutting down`, 'Bootstrap');
    await app.close();
    await embedded?.stop();
  };
  process.once('SIGTERM', (signal) => void shutdown(signal));
  process.once('SIGINT', (signal) => void shutdown(signal));
}

bootstrap().catch((error: unknown) => {
  // A configuration problem is the operator's to fix: say what is wrong, not where in the code.
  console.error(error instanceof EnvironmentError ? error.message : error);
  process.exit(1);
});
