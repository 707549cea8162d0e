import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { MatchmakerService } from '../src/matchmaker/matchmaker.service.js';
import { TestApp } from './support/test-app.js';

const run = promisify(execFile);
const NEWTONSOFT = join('node_modules', 'nswag', 'bin', 'binaries', 'Win', 'Newtonsoft.Json.dll');

/** An answer the harness gives instead of the service, once or a few times (a 429, a 503, a 401). */
interface Fault {
  method: string;
  path: string;
  status: number;
  retryAfter?: number;
  times: number;
  /** The error body's code, if not the status's usual one. */
  code?: string;
}

/**
 * The C# SDK (sdk/csharp/) compiled with Mono's mcs and driven by test/csharp/Integration.cs, run with
 * mono against the service listening on a port. Between them stands a harness: it passes requests and
 * WebSocket upgrades through, and answers the program's /__harness/ calls: a development provider token,
 * an idp2 introspection, a run of the matchmaker, cutting every socket (a dropped connection), and
 * failures injected in front of the service (the 429 and 503 retries, the 401 that makes the session
 * renew its token). Without Mono this fails, it does not skip: .ci/run installs it.
 */
describe('the C# SDK on Mono', () => {
  let api: TestApp;
  let harness: Server;
  let build: string;
  const faults: Fault[] = [];
  const tunnels = new Set<Socket>();

  beforeAll(async () => {
    harness = createServer((request, response) => void handle(request, response));
    harness.on('upgrade', tunnel);
    await new Promise<void>((resolve) => harness.listen(0, '127.0.0.1', resolve));
    const harnessUrl = `http://127.0.0.1:${(harness.address() as { port: number }).port}`;
    api = await TestApp.start(
      {
        IDP2_INTROSPECTION_URL: `${harnessUrl}/__harness/idp2/introspect`,
        IDP2_CLIENT_ID: 'csharp-sdk-test',
        IDP2_CLIENT_SECRET: 'csharp-sdk-test-secret',
      },
      { listen: true },
    );
    build = await mkdtemp(join(tmpdir(), 'csharp-sdk-'));
  });

  afterAll(async () => {
    for (const socket of tunnels) socket.destroy();
    await new Promise((resolve) => harness.close(resolve));
    await api.close();
    await rm(build, { recursive: true, force: true });
  });

  it('compiles with mcs (C# 7.2, what Unity and Mono both take), with no warning in the hand-written code', async () => {
    const sources = [...(await csharpFiles(join('sdk', 'csharp', 'Runtime'))), join('test', 'csharp', 'Integration.cs')];
    const output = await run(
      'mcs',
      [
        '-langversion:7.2',
        '-target:exe',
        `-out:${join(build, 'Integration.exe')}`,
        `-r:${NEWTONSOFT}`,
        '-r:System.Net.Http.dll',
        '-r:System.Runtime.Serialization.dll',
        ...sources,
      ],
      { maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: NodeJS.ErrnoException & { stdout?: string; stderr?: string }) => {
      if (error.code === 'ENOENT')
        throw new Error('mcs is not installed: apt-get install -y mono-complete (.ci/run does this). This test does not skip.');
      throw new Error(`mcs failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    });
    // NSwag's file carries warnings of its own (obsolete members, hidden ToJson); the SDK's code none.
    const warnings = output.stdout.split('\n').filter((line) => /warning CS/.test(line) && !line.includes('Generated'));
    expect(warnings).toEqual([]);
    await copyFile(NEWTONSOFT, join(build, 'Newtonsoft.Json.dll'));
  }, 120_000);

  // What a Unity developer copies first: it must compile against the SDK as it is (stand-ins for the
  // few UnityEngine members it uses).
  it("compiles the README's MonoBehaviour", async () => {
    const readme = await readFile(join('sdk', 'csharp', 'README.md'), 'utf8');
    const example = /```csharp\n(using System;[\s\S]*?)```/.exec(readme)![1];
    await writeFile(join(build, 'Backend.cs'), example);
    await writeFile(join(build, 'Unity.cs'), UNITY_STAND_INS);
    const sources = [...(await csharpFiles(join('sdk', 'csharp', 'Runtime'))), join(build, 'Backend.cs'), join(build, 'Unity.cs')];
    await run(
      'mcs',
      [
        '-langversion:7.2',
        '-target:library',
        `-out:${join(build, 'Backend.dll')}`,
        `-r:${NEWTONSOFT}`,
        '-r:System.Net.Http.dll',
        '-r:System.Runtime.Serialization.dll',
        ...sources,
      ],
      {
        maxBuffer: 16 * 1024 * 1024,
      },
    ).catch((error: { stdout?: string; message: string }) => {
      throw new Error(`the README's example does not compile: ${error.message}\n${error.stdout ?? ''}`);
    });
  }, 120_000);

  it('signs in, refreshes, writes with If-Match, awards and trades, matches two players, resumes a dropped socket and retries a 429', async () => {
    const harnessUrl = `http://127.0.0.1:${(harness.address() as { port: number }).port}`;
    const result = await run('mono', [join(build, 'Integration.exe')], {
      env: { ...process.env, GAME_BACKEND_URL: harnessUrl },
      timeout: 180_000,
    }).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`the integration program failed: ${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    });
    const checks = result.stdout.split('\n').filter((line) => line.startsWith('ok '));
    expect(checks).toEqual(
      expect.arrayContaining([
        'ok sign-in with idp1 and idp2',
        'ok a guest signs in on a device, and again from the id kept in the persistent data path',
        'ok create: false is a 404 NO_SUCH_ACCOUNT for a new device',
        'ok the guest links idp1, and idp1 alone signs in to the same account elsewhere',
        'ok the device unlinked, and its id forgotten',
        "ok the unlinked device's session ends",
        'ok the last identity stays: 409 LAST_IDENTITY',
        'ok refresh before expiry, by itself',
        'ok refresh once after a 401, and the request sent again',
        'ok update with If-Match changes only what it sets',
        'ok a stale If-Match is a 409 VERSION_CONFLICT',
        'ok an award',
        'ok a trade offered, accepted, and the holdings moved',
        'ok realtime events received, typed',
        'ok a two-player match through tickets',
        'ok the dropped socket reconnected by itself',
        'ok a 429 retried after its Retry-After',
        'ok a POST without an Idempotency-Key is not retried',
        'ok a POST with an Idempotency-Key is retried',
      ]),
    );
    expect(checks.find((line) => line.startsWith('ok no event lost or repeated'))).toBeDefined();
    expect(result.stdout).toMatch(/csharp sdk: \d+ passed, 0 failed/);
  }, 240_000);

  /** A request: the harness's own, an injected failure, or passed through to the service. */
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://harness');
    if (url.pathname.startsWith('/__harness/')) return control(url, request, response);
    const index = faults.findIndex((fault) => fault.method === request.method && fault.path === url.pathname);
    if (index >= 0) {
      const fault = faults[index];
      if (--fault.times === 0) faults.splice(index, 1);
      request.resume();
      response.writeHead(fault.status, {
        'content-type': 'application/json',
        ...(fault.retryAfter !== undefined && { 'retry-after': String(fault.retryAfter) }),
      });
      const code = fault.code ?? { 401: 'UNAUTHORIZED', 429: 'RATE_LIMITED' }[fault.status] ?? 'DATABASE_UNAVAILABLE';
      response.end(JSON.stringify({ status: fault.status, code, message: 'injected by the test harness', requestId: 'harness' }));
      return;
    }
    const upstream = httpRequest(`${api.baseUrl}${request.url}`, { method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(response);
    });
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  }

  async function control(url: URL, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const reply = (status: number, body: string): void => void response.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    switch (url.pathname) {
      case '/__harness/provider-token':
        return reply(200, await api.providerToken(url.searchParams.get('subject')!));
      case '/__harness/idp2/introspect': {
        // RFC 7662 as idp2 answers it: `token=idp2.<subject>` is the active token of <subject>.
        let form = '';
        for await (const chunk of request) form += String(chunk);
        const token = new URLSearchParams(form).get('token') ?? '';
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(token.startsWith('idp2.') ? { active: true, sub: token.slice('idp2.'.length) } : { active: false }));
        return;
      }
      case '/__harness/matchmake':
        return reply(200, String(await api.app.get(MatchmakerService).runOnce()));
      case '/__harness/cut-sockets': {
        const count = tunnels.size;
        for (const socket of tunnels) socket.destroy();
        return reply(200, String(count));
      }
      case '/__harness/fail':
        faults.push({
          method: url.searchParams.get('method')!,
          path: url.searchParams.get('path')!,
          status: Number(url.searchParams.get('status')),
          retryAfter: url.searchParams.has('retryAfter') ? Number(url.searchParams.get('retryAfter')) : undefined,
          times: Number(url.searchParams.get('times') ?? 1),
          code: url.searchParams.get('code') ?? undefined,
        });
        return reply(200, 'ok');
      default:
        return reply(404, 'no such harness call');
    }
  }

  /** A WebSocket upgrade, passed through byte for byte; cut-sockets destroys both ends. */
  function tunnel(request: IncomingMessage, client: Socket, head: Buffer): void {
    const { port } = new URL(api.baseUrl);
    const server = connect(Number(port), '127.0.0.1', () => {
      const lines = [`${request.method} ${request.url} HTTP/1.1`];
      for (let i = 0; i < request.rawHeaders.length; i += 2) lines.push(`${request.rawHeaders[i]}: ${request.rawHeaders[i + 1]}`);
      server.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) server.write(head);
      client.pipe(server).pipe(client);
    });
    for (const [socket, other] of [
      [client, server],
      [server, client],
    ]) {
      tunnels.add(socket);
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        tunnels.delete(socket);
        other.destroy();
      });
    }
  }
});

const UNITY_STAND_INS = `
namespace UnityEngine {
  public class MonoBehaviour {}
  public static class Application { public static string persistentDataPath { get { return "."; } } }
  public static class Debug { public static void Log(object message) {} }
  public static class PlayerPrefs {
    public static string GetString(string key, string fallback = "") { return fallback; }
    public static void SetString(string key, string value) {}
  }
}
public static class MyLogin { public static System.Threading.Tasks.Task<string> GetOpenIdTokenAsync() { return System.Threading.Tasks.Task.FromResult(""); } }
`;

async function csharpFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith('.cs')).map((entry) => join(entry.parentPath, entry.name));
}
