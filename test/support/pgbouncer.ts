import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopChild } from './child-process.js';
import { freePort } from './free-port.js';

/**
 * A real PgBouncer (Debian's package, which .ci/run installs) in transaction-pooling mode in front of
 * a PostgreSQL, on a free loopback port, as production would run it between the instances and the
 * database. It can be stopped and started again on its port.
 */
export class PgBouncer {
  private process: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly directory: string,
  ) {}

  /** In front of the PostgreSQL of `databaseUrl` (its user, password and database are kept). */
  static async start(databaseUrl: string, poolSize = 20): Promise<PgBouncer> {
    const target = new URL(databaseUrl);
    const directory = await mkdtemp(join(tmpdir(), 'game-backend-pgbouncer-'));
    const bouncer = new PgBouncer(await freePort(), directory);
    const user = decodeURIComponent(target.username);
    // The password in clear: readable by PgBouncer's user only.
    const users = join(directory, 'users.txt');
    await writeFile(users, `"${user}" "${decodeURIComponent(target.password)}"\n`, { mode: 0o600 });
    if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', users]);
    await writeFile(
      join(directory, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=${target.hostname} port=${target.port}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${bouncer.port}`,
        'unix_socket_dir =',
        'auth_type = scram-sha-256',
        `auth_file = ${join(directory, 'users.txt')}`,
        'pool_mode = transaction',
        `default_pool_size = ${poolSize}`,
        'max_client_conn = 1000',
        // Session settings the service sends at connection start; under transaction pooling they
        // would leak between clients, so PgBouncer drops them (docs/SCALING.md: set them on the role).
        'ignore_startup_parameters = extra_float_digits,statement_timeout,idle_in_transaction_session_timeout',
        // PgBouncer refuses to run as root; the embedded PostgreSQL's system user serves.
        ...(process.getuid?.() === 0 ? ['user = postgres'] : []),
      ].join('\n') + '\n',
    );
    // Its configuration readable by that user.
    await chmod(directory, 0o755);
    await bouncer.restart();
    return bouncer;
  }

  /** `databaseUrl` as a client of this PgBouncer sees it. */
  urlFor(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  async restart(): Promise<void> {
    const binary = process.env.PGBOUNCER_PATH ?? (existsSync('/usr/sbin/pgbouncer') ? '/usr/sbin/pgbouncer' : 'pgbouncer');
    const child = spawn(binary, [join(this.directory, 'pgbouncer.ini')], { stdio: 'ignore' });
    this.process = child;
    const failed = new Promise<never>((_, reject) =>
      child.once('error', (error) => reject(new Error(`cannot start ${binary} (install Debian's pgbouncer): ${error.message}`))),
    );
    const deadline = Date.now() + 10_000;
    while (!(await Promise.race([listening(this.port), failed]))) {
      if (child.exitCode !== null) throw new Error(`pgbouncer exited with ${child.exitCode}`);
      if (Date.now() > deadline) throw new Error(`pgbouncer did not listen on port ${this.port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Stops it at once (SIGINT: connections cut, as a crash of the pooler would). */
  stop(): Promise<void> {
    return stopChild(this.process, 'SIGINT');
  }

  async remove(): Promise<void> {
    await this.stop();
    await rm(this.directory, { recursive: true, force: true });
  }
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('error', () => resolve(false));
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
  });
}
