/**
 * Where the time went in a V8 CPU profile (`node --cpu-prof`, as `npm run bench -- --profile` takes of
 * the service): self time by package and by function, and total (inclusive) time of the functions that
 * matter most, so that a profile can be read without DevTools.
 *
 *   npx tsx bench/profile-summary.ts .data/bench/profiles/service/CPU.<...>.cpuprofile
 *     [--top 25] [--filter typeorm] [--requests 18579]
 *
 * `--filter` (a substring of function name or file) restricts the inclusive list; `--requests` (how
 * many requests the process served while profiled: the `responses` of the rounds in the results JSON)
 * adds microseconds per request to each line. Times are wall-clock time on the CPU as V8 samples it:
 * on a machine that is busy with other work they include time the process was preempted.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' }, filter: { type: 'string' }, requests: { type: 'string' } },
});
const file = positionals[0];
if (!file) {
  console.error('usage: tsx bench/profile-summary.ts <file.cpuprofile> [--top 25] [--filter text] [--requests n]');
  process.exit(2);
}
const top = Number(flags.top);
const filter = flags.filter;
const requests = flags.requests ? Number(flags.requests) : undefined;
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;

const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

// Start-up (loading modules, compiling, wiring Nest) is not what a request costs: samples before the
// first one inside a route handler's stack are left out.
const handling = (id: number): boolean => {
  for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
    const { url } = byId.get(current)!.callFrame;
    if (url.includes('router-execution-context') || url.includes('fastify/lib/route.js')) return true;
  }
  return false;
};
const first = Math.max(0, profile.samples.findIndex(handling));

// Self time per node, in microseconds (each sample's delta is the time until the next sample).
const self = new Map<number, number>();
profile.samples.forEach((id, index) => {
  if (index >= first) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[index + 1] ?? 0));
});
const total = [...self.values()].reduce((sum, value) => sum + value, 0);

function where(node: ProfileNode): string {
  const url = node.callFrame.url;
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const rest = url.slice(modules + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  if (url.startsWith('node:')) return 'node (built-in)';
  if (url.includes('/dist/src/')) return 'service (src/)';
  if (url === '') {
    const name = node.callFrame.functionName;
    return name === '(garbage collector)' ? 'garbage collector' : name === '(idle)' || name === '(program)' ? name : 'native/V8';
  }
  return url;
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const short = url
    .replace(/^.*node_modules\//, '')
    .replace(/^.*\/dist\//, 'dist/')
    .replace(/^file:\/\//, '');
  return `${functionName || '(anonymous)'} ${short ? `${short}:${lineNumber + 1}` : ''}`.trim();
}

const percent = (value: number) =>
  `${((100 * value) / total).toFixed(1).padStart(5)}%${requests ? `  ${(value / requests).toFixed(1).padStart(6)} µs/req` : ''}`;
const busy =
  total - [...self].filter(([id]) => byId.get(id)!.callFrame.functionName === '(idle)').reduce((sum, [, value]) => sum + value, 0);

const skipped = profile.timeDeltas.slice(0, first + 1).reduce((sum, value) => sum + value, 0);
console.log(
  `${file}\n${(total / 1e6).toFixed(1)} s sampled after the first request (${(skipped / 1e6).toFixed(1)} s of start-up left out), ` +
    `${(busy / 1e6).toFixed(1)} s not idle\n`,
);

const byPackage = new Map<string, number>();
for (const [id, value] of self) {
  const key = where(byId.get(id)!);
  byPackage.set(key, (byPackage.get(key) ?? 0) + value);
}
console.log('Self time by package');
for (const [key, value] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${percent(value)}  ${key}`);

// The same, with the time of built-ins and native code charged to the package that called them (a
// socket write to the package that wrote, a regular expression to the package that ran it).
const byCaller = new Map<string, number>();
for (const [id, value] of self) {
  let key = where(byId.get(id)!);
  for (
    let current = parent.get(id);
    current !== undefined && ['node (built-in)', 'native/V8'].includes(key);
    current = parent.get(current)
  ) {
    const candidate = where(byId.get(current)!);
    if (candidate !== '(root)' && candidate !== 'native/V8' && candidate !== 'node (built-in)') key = candidate;
  }
  byCaller.set(key, (byCaller.get(key) ?? 0) + value);
}
console.log('\nSelf time by package, built-ins and native code charged to their caller');
for (const [key, value] of [...byCaller].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${percent(value)}  ${key}`);

const byFunction = new Map<string, number>();
for (const [id, value] of self) {
  const key = label(byId.get(id)!);
  byFunction.set(key, (byFunction.get(key) ?? 0) + value);
}
console.log('\nSelf time by function');
for (const [key, value] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${percent(value)}  ${key}`);

// Inclusive time: a sample counts once for every distinct function on its stack.
const inclusive = new Map<string, number>();
for (const [id, value] of self) {
  const seen = new Set<string>();
  for (let current: number | undefined = id; current !== undefined; current = parent.get(current)) {
    const key = label(byId.get(current)!);
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + value);
  }
}
console.log(`\nTotal (inclusive) time by function${filter ? ` matching "${filter}"` : ''}`);
for (const [key, value] of [...inclusive]
  .filter(([key]) => !filter || key.includes(filter))
  .filter(([key]) => !key.startsWith('(root)') && !key.startsWith('(program)') && !key.startsWith('(idle)'))
  .sort((a, b) => b[1] - a[1])
  .slice(0, top)) {
  console.log(`${percent(value)}  ${key}`);
}
