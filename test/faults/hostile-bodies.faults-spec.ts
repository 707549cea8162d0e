import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { productionNodeFlags } from '../support/production-flags.js';
import { Cluster, type Reply, residentMemory, tally } from './cluster.js';
import { agentFrom, callFrom } from './from-address.js';

/**
 * The two attacks of issue 47 that needed no account or one free account, from one address against
 * three instances started as production starts them, while honest players (an address each) play:
 * bodies of many tiny objects (a megabyte of `{}` took seconds of the event loop and, twenty-four at
 * once, the heap), and bodies that never finish (1,000 sockets held one byte of a body forever, 20,000
 * used every file descriptor). Every honest request must be answered, none with a 5xx, 99 % within a
 * second; no instance may die or pass its heap limit; every unfinished body must be closed. The attacker
 * is a process of its own at the lowest CPU priority (test/faults/hostile-attacker.ts).
 */
const INSTANCES = 3;
const HONEST = 20;
const RUN_MS = 30_000;
const ATTACKER = '127.0.0.2';
const honestAddress = (index: number) => `127.0.0.${10 + index}`;
const BODY_TIMEOUT_MS = 5_000;
const PER_ADDRESS = 300;
const UNFINISHED = 1_000;
const HEAP_LIMIT_MIB = Number(/--max-old-space-size=(\d+)/.exec(productionNodeFlags().join(' '))![1]);

interface AttackReport {
  bodies: Record<string, number>;
  peakOpen: number;
  closedByService: number;
  stillOpen: number;
}

/**
 * Runs test/faults/hostile-attacker.ts at the lowest CPU priority (an attacker spends its own machine's
 * CPU; here it shares two cores with the instances and the honest players), and answers its report.
 */
function runAttacker(orders: Record<string, unknown>): Promise<AttackReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/faults/hostile-attacker.ts', JSON.stringify(orders)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    setPriority(child.pid!, 19);
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`the attacker exited with ${code}:\n${output}`));
      else resolve(JSON.parse(output.trim().split('\n').at(-1)!) as AttackReport);
    });
  });
}

const percentile = (values: number[], share: number) => [...values].sort((a, b) => a - b)[Math.ceil(values.length * share) - 1];

describe('hostile bodies against three instances', () => {
  let cluster: Cluster;
  const peaks = new Map<number, number>();

  beforeAll(async () => {
    cluster = await Cluster.start(
      INSTANCES,
      {
        // Rate limits as shipped: each client here has an address of its own.
        RATE_LIMIT_ENABLED: 'true',
        HTTP_BODY_TIMEOUT: String(BODY_TIMEOUT_MS),
        HTTP_MAX_CONNECTIONS_PER_ADDRESS: String(PER_ADDRESS),
      },
      { redis: true },
      productionNodeFlags(),
    );
  }, 300_000);

  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it('answers every honest player within a second while one address sends tiny objects and unfinished bodies for 30 s', async () => {
    const urls = cluster.instances.map((instance) => instance.url);
    let turn = 0;
    const next = () => urls[turn++ % urls.length];

    // The attacker's free account, and honest players who sign in as any client does, each from its address.
    const attackerSignIn = await callFrom(
      agentFrom(ATTACKER),
      urls[0],
      'POST',
      '/auth/device',
      undefined,
      JSON.stringify({ deviceId: 'attacker-device-0001' }),
    );
    expect(attackerSignIn.status).toBe(200);
    const attackerToken = attackerSignIn.body.token as string;
    const honest = await Promise.all(
      Array.from({ length: HONEST }, async (_, index) => {
        const agent = agentFrom(honestAddress(index));
        const token = await cluster.signIn(`honest-body-${index}`, cluster.instances[index % INSTANCES]);
        const personas = await callFrom(agent, urls[0], 'GET', '/personas', token);
        return { agent, token, persona: personas.body[0].uid as string };
      }),
    );

    const deadline = Date.now() + RUN_MS;
    const going = () => Date.now() < deadline;
    const honestReplies: Reply[] = [];

    const play = (player: (typeof honest)[number], index: number) => async () => {
      let round = 0;
      while (going()) {
        const url = next();
        const reply =
          round++ % 4 === 0
            ? await callFrom(
                player.agent,
                url,
                'PUT',
                '/storage',
                player.token,
                JSON.stringify({ objects: [{ collection: 'saves', key: 'slot', value: { round, index } }] }),
              )
            : round % 4 === 1
              ? await callFrom(player.agent, url, 'GET', '/storage/saves/slot', player.token)
              : round % 4 === 2
                ? await callFrom(
                    player.agent,
                    url,
                    'POST',
                    `/personas/${player.persona}/archetypes/hero/skills/run/progress`,
                    player.token,
                    '{"value":1}',
                  )
                : await callFrom(player.agent, url, 'GET', '/personas', player.token);
        honestReplies.push(reply);
        // A player's pace: five requests a second.
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };

    const sampler = async () => {
      while (going()) {
        for (const instance of cluster.instances) {
          const { peak } = await residentMemory(instance.process.pid!);
          peaks.set(instance.index, Math.max(peaks.get(instance.index) ?? 0, peak));
        }
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    };

    const [attack] = await Promise.all([
      runAttacker({
        urls,
        address: ATTACKER,
        token: attackerToken,
        runMs: RUN_MS,
        unfinished: UNFINISHED,
        closeWithinMs: BODY_TIMEOUT_MS * 3,
      }),
      ...honest.map((player, index) => play(player, index)()),
      sampler(),
    ]);

    const latencies = honestReplies.map((reply) => reply.took);
    console.log(
      `hostile bodies: ${RUN_MS / 1000} s on ${INSTANCES} instances: honest ${JSON.stringify(tally(honestReplies))}, ` +
        `p50 ${percentile(latencies, 0.5)} ms, p99 ${percentile(latencies, 0.99)} ms, max ${Math.max(...latencies)} ms; ` +
        `tiny-object bodies ${JSON.stringify(attack.bodies)}; unfinished bodies: peak ${attack.peakOpen} open at once, ` +
        `${attack.closedByService} closed by the service, ${attack.stillOpen} open 15 s after the attack; ` +
        `peak RSS ${[...peaks.values()].map((peak) => peak.toFixed(0)).join(' / ')} MiB`,
    );

    expect(honestReplies.length).toBeGreaterThan(HONEST * 50);
    expect(honestReplies.filter((reply) => reply.status === 0 || reply.status >= 500 || reply.status === 429)).toEqual([]);
    expect(percentile(latencies, 0.99)).toBeLessThan(1000);
    // Every tiny-object body was refused for its values or the address's budget, none answered with a 5xx.
    expect(Object.keys(attack.bodies).filter((status) => Number(status) >= 500)).toEqual([]);
    expect(attack.bodies['413']).toBeGreaterThan(0);
    expect(attack.bodies['429']).toBeGreaterThan(0);
    // The address held no more than its connections on each instance, and the service closed what never finished.
    let refusedForAddress = 0;
    for (const url of urls) {
      const metrics = await (await fetch(`${url}/metrics`)).text();
      refusedForAddress += Number(/^http_connections_refused_total\{reason="address"\} (\d+)/m.exec(metrics)?.[1] ?? 0);
    }
    expect(refusedForAddress).toBeGreaterThan(0);
    expect(attack.closedByService).toBeGreaterThan(UNFINISHED);
    // What the attacker still held when the attack ended was closed by the service within its timeouts.
    expect(attack.stillOpen).toBe(0);
    for (const peak of peaks.values()) expect(peak).toBeLessThan(HEAP_LIMIT_MIB);
    for (const instance of cluster.instances) expect(instance.process.exitCode).toBeNull();
    for (const instance of cluster.instances) expect((await fetch(`${instance.url}/health/ready`)).status).toBe(200);
    honest.forEach((player) => player.agent.destroy());
  }, 300_000);
});
