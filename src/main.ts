import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'nestjs-pino';
import { AppModule } from './app.module.js';
import { configureApp, createFastifyAdapter } from './app.setup.js';
import { EnvironmentError, loadConfig } from './config/environment.js';
import { openServiceDatabase } from './database/database-location.js';

async function bootstrap(): Promise<void> {
  const environment = loadConfig();
  // Without DATABASE_URL the service brings its own PostgreSQL (docs/CONTRACT.md section 8), started
  // before Nest so that the rest of the service sees one kind of database only: a URL.
  const database = await openServiceDatabase(environment);
  const config = { ...environment, databaseUrl: database.url };

  let app: NestFastifyApplication;
  try {
    app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), createFastifyAdapter(config), {
      bufferLogs: true,
      bodyParser: false,
    });
  } catch (error) {
    await database.close();
    throw error;
  }
  const logger = app.get(Logger);
  app.useLogger(logger);
  configureApp(app);
  await app.listen({ port: config.port, host: config.host });

  logger.log(
    `listening on http://${config.host}:${config.port} (docs at /docs), ` +
      `${config.isProduction ? 'production' : 'development'} mode, database: ${database.description}`,
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
    await database.close();
  };
  process.once('SIGTERM', (signal) => void shutdown(signal));
  process.once('SIGINT', (signal) => void shutdown(signal));
}

bootstrap().catch((error: unknown) => {
  // A configuration or data-folder problem is the operator's to fix: say what is wrong, not where in the code.
  // By name: the embedded server's module is loaded only when it is used (database-location.ts).
  const inUse = error instanceof Error && error.name === 'EmbeddedPostgresInUseError';
  console.error(error instanceof EnvironmentError || inUse ? error.message : error);
  process.exit(1);
});
