import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopChild } from './child-process.js';
import { freePort } from './free-port.js';

/**
 * A real redis-server (Debian's package, which .ci/run installs) on a free loopback port, with no
 * persistence: for the tests and the fault suite. It can be killed and started again on the same port.
 */
export class RedisServer {
  private process: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly directory: string,
  ) {}

  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await freePort(), await mkdtemp(join(tmpdir(), 'game-backend-redis-')));
    await server.restart();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts it (again) on its port; resolves once it answers PING. */
  async restart(): Promise<void> {
    const binary = process.env.REDIS_SERVER_PATH ?? 'redis-server';
    const child = spawn(
      binary,
      ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.directory],
      {
        stdio: 'ignore',
      },
    );
    this.process = child;
    const failed = new Promise<never>((_, reject) =>
      child.once('error', (error) => reject(new Error(`cannot start ${binary} (install Debian's redis-server): ${error.message}`))),
    );
    const deadline = Date.now() + 10_000;
    while (!(await Promise.race([ping(this.port), failed]))) {
      if (Date.now() > deadline) throw new Error(`redis-server did not answer on port ${this.port}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** SIGKILL: as a crash would, with no goodbye to its clients. */
  kill(): Promise<void> {
    return stopChild(this.process, 'SIGKILL');
  }

  async stop(): Promise<void> {
    await this.kill();
    await rm(this.directory, { recursive: true, force: true });
  }
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('error', () => resolve(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
  });
}
