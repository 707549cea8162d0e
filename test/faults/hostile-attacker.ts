/**
 * The attacker of test/faults/hostile-bodies.faults-spec.ts, as a process of its own that the test
 * starts at the lowest CPU priority: an attacker spends its own machine's CPU, and here it shares two
 * cores with the instances and the honest players' client. From `address`, for `runMs`: bodies of
 * many tiny objects (without an account and with a free one) and `unfinished` sockets that send
 * headers and one byte of a 100,000-byte body, each opened again a second after it is closed. Prints
 * one JSON line: the answers to the bodies by status, and what became of the sockets.
 */
import { connect, type Socket } from 'node:net';
import { tally, type Reply } from './cluster.js';
import { agentFrom, callFrom } from './from-address.js';

interface Orders {
  urls: string[];
  address: string;
  token: string;
  runMs: number;
  unfinished: number;
  /** How long to wait, after the run, for the service to close the sockets still open. */
  closeWithinMs: number;
}

const orders = JSON.parse(process.argv[2]) as Orders;
const tinyObjects = (count: number) => `[${Array(count).fill('{}').join(',')}]`;
// 340,000 `{}`: 1.02 MB; fifteen storage values of 21,842, each just under 64 KiB.
const SIGN_IN_JUNK = `{"deviceId":"abcdefghijklmnopqrstuvwxyz","junk":${tinyObjects(340_000)}}`;
const STORAGE_JUNK = `{"objects":[${Array.from({ length: 15 }, (_, index) => `{"collection":"junk","key":"k${index}","value":{"a":${tinyObjects(21_842)}}}`).join(',')}]}`;

const agent = agentFrom(orders.address);
const deadline = Date.now() + orders.runMs;
const going = () => Date.now() < deadline;
let turn = 0;
const next = () => orders.urls[turn++ % orders.urls.length];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const replies: Reply[] = [];
const junk = (path: string, body: string, method: string, token?: string) => async () => {
  while (going()) {
    const reply = await callFrom(agent, next(), method, path, token, body);
    replies.push(reply);
    // A connection the service closed at once (the address holds all it may) is tried again after a moment.
    if (reply.status === 0) await pause(100);
  }
};

let open = 0;
let peakOpen = 0;
let closedByService = 0;
const held = new Set<Socket>();
const hold = async () => {
  while (going()) {
    await new Promise<void>((resolve) => {
      const url = new URL(next());
      const socket = connect({ host: url.hostname, port: Number(url.port), localAddress: orders.address });
      held.add(socket);
      socket.on('connect', () => {
        open++;
        peakOpen = Math.max(peakOpen, open);
        socket.write(
          `PUT /storage HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: jwt ${orders.token}\r\n` +
            'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{',
        );
      });
      // What the service answers (408, then its close) is read and dropped, as a client's socket would.
      socket.resume();
      socket.on('error', () => undefined);
      socket.on('close', () => {
        held.delete(socket);
        if (socket.bytesWritten > 0) {
          open--;
          closedByService++;
        }
        resolve();
      });
    });
    await pause(1000);
  }
};

await Promise.all([
  ...Array.from({ length: 6 }, junk('/auth/device', SIGN_IN_JUNK, 'POST')),
  ...Array.from({ length: 4 }, junk('/storage', STORAGE_JUNK, 'PUT', orders.token)),
  ...Array.from({ length: orders.unfinished }, hold),
]);
const waited = Date.now();
while (held.size > 0 && Date.now() - waited < orders.closeWithinMs) await pause(200);
process.stdout.write(`${JSON.stringify({ bodies: tally(replies), peakOpen, closedByService, stillOpen: held.size })}\n`);
for (const socket of held) socket.destroy();
agent.destroy();
