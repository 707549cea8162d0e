/**
 * Open-loop latency (issue 32, goal 2): how fast the service answers at a given arrival rate, beside the
 * baseline at the same rate. The closed loop of the other scenarios (32 connections, each sending as
 * soon as its answer is back) runs the server at its maximum, where p99 is queueing (Little's law); here
 * requests arrive at fixed rates below the maximum, as players do, and the tail is the server's own.
 *
 * For each scenario: the baseline's maximum from its closed-loop run (the service's own for a route
 * the baseline lacks); then 25 %, 50 % and 75 % of it, service and baseline alternating round by round;
 * then the baseline at the share of its own maximum that the service's 50 % rate is of the service's
 * (the two tails at equal load); then the knee, the highest rate at which the service's p99 stays under
 * 50 ms, by a step search over rates on the service alone; then the recovery from an overload: on each
 * server, 75 % and at once 25 % again, and how many seconds pass before a second's p99 is back within
 * 1.5 × that server's own 25 % tail.
 */
import type { Request } from 'autocannon';
import type { OpenLoopAnswer } from './load.js';
import { percentileOf, type SecondFigures, SLOW_MS } from './open-loop-driver.js';
import { cpuMillisecondsOf, type LoadGenerator, type ManagedProcess } from './processes.js';
import type { TargetName } from './report.js';

export interface OpenLoopTarget {
  name: TargetName;
  url: string;
  server: ManagedProcess;
}

export interface OpenLoopScenario {
  id: string;
  title: string;
  requests: Request[];
  /** The closed-loop maximum the rates are shares of, and whose it is. */
  maximum: { requestsPerSecond: number; of: TargetName };
  /** The service's own closed-loop maximum: a share of the baseline's is a higher share of the service's. */
  serviceMaximum: number;
  /** The goal at 50 %: the service's p99 under this many ms (and within 1.5 × the baseline's). */
  p99BoundMs?: number;
}

export interface RateFigures {
  target: TargetName;
  /** Requests a second asked for, and the share of the maximum. */
  rate: number;
  share: number;
  answeredPerSecond: number;
  p50: number;
  p99: number;
  p999: number;
  max: number;
  /** Server CPU time per answer (ms), over the measured rounds. */
  cpuMsPerRequest: number;
  errors: number;
  non2xx: Record<string, number>;
  /** The driver's own lateness (ms, worst round's p99): the load process kept its schedule if small. */
  sendLagP99: number;
  connections: number;
  /** The service's garbage collections during the measured rounds (its /metrics); the baseline has none to read. */
  gc?: GcFigures;
  /** Each measured round's first slow request's due time (s into the round; null if none over the driver's SLOW_MS). */
  firstSlowAtSeconds: Array<number | null>;
  /** The baseline at the share of its own maximum that the service's 50 % rate is of the service's. */
  equalLoad?: boolean;
}

export interface GcFigures {
  pausesPerSecond: number;
  meanPauseMs: number;
  /** Share of the wall time the main thread stood in a collection. */
  pausedShare: number;
  /** Pause milliseconds per 1,000 answers. */
  pauseMsPerThousand: number;
}

/** prom-client's nodejs_gc_duration_seconds over every kind of collection: count and total seconds. */
async function gcTotals(url: string): Promise<{ count: number; seconds: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const sum = (suffix: string) =>
    [...text.matchAll(new RegExp(`^nodejs_gc_duration_seconds_${suffix}\\{[^}]*\\} (\\S+)$`, 'gm'))].reduce(
      (total, [, value]) => total + Number(value),
      0,
    );
  return { count: sum('count'), seconds: sum('sum') };
}

export interface KneeProbe {
  rate: number;
  p99: number;
  answeredPerSecond: number;
  errors: number;
  ok: boolean;
}

export interface OpenLoopReport {
  id: string;
  title: string;
  maximum: OpenLoopScenario['maximum'];
  serviceMaximum: number;
  p99BoundMs?: number;
  rates: RateFigures[];
  knee: { rate?: number; share?: number; p99?: number; probes: KneeProbe[] };
  recovery: RecoveryFigures[];
  loadavg: string;
}

/** One server's recovery: the overload's rate, then the first share's, and each second's figures after the change. */
export interface RecoveryFigures {
  target: TargetName;
  /** When the overload began (ISO 8601), to find its seconds in a log or a trace. */
  startedAt: string;
  /** The overload: its rate, how long it lasted, and the answers that ended during it, a second (its throughput). */
  overload: { rate: number; seconds: number; answeredPerSecond: number };
  rate: number;
  /** The p99 of that server's measured rounds at the first share, and the bound a second must be back within. */
  tailMs: number;
  boundMs: number;
  /** Whole seconds after the overload ended before the first second that was back (null: none was, within the round). */
  backAfterSeconds: number | null;
  /** Seconds over the bound after the first one back (a relapse). */
  slowSecondsAfter: number;
  /** Every second of the window, the overload's first. */
  perSecond: SecondFigures[];
}

export const OPEN_LOOP_SHARES = [0.25, 0.5, 0.75];
/** The overload and the rate after it, in the recovery measure: the last share and the first. */
const OVERLOAD_SHARE = OPEN_LOOP_SHARES[OPEN_LOOP_SHARES.length - 1];
const AFTER_SHARE = OPEN_LOOP_SHARES[0];
/** The knee's bound, and the service must also answer what arrives (within 5 %) without errors. */
export const KNEE_P99_MS = 50;
export const RATIO_BOUND = 1.5;

export interface OpenLoopSettings {
  warmup: number;
  rounds: number;
  duration: number;
  /** Seconds of each knee probe (after a warm-up of a third of it at the same rate). */
  probe: number;
  /** The recovery measure: seconds of the overload, then of the first share's rate after it. */
  overload: number;
  recovery: number;
}

const figure = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/** A rate's figures for the log; when each round's first slow answer was due tells a stall that came with the round's start (0 s). */
function rateLine(figures: RateFigures): string {
  const { rate, share, target, gc } = figures;
  return (
    `at ${rate}/s (${figure(share * 100, 0)} %${figures.equalLoad ? ", the service's share of its own maximum at 50 %" : ''}), ${target}: ` +
    `${Math.round(figures.answeredPerSecond)}/s answered, p50 ${figure(figures.p50)} p99 ${figure(figures.p99)} p99.9 ${figure(figures.p999)} ms, ` +
    `${figure(figures.cpuMsPerRequest, 3)} CPU ms/req, ${figures.errors} errors, ${figures.connections} connections, ` +
    `first answer over ${SLOW_MS} ms due at ${figures.firstSlowAtSeconds.map((at) => (at === null ? 'none' : `${figure(at)} s`)).join(', ')}` +
    (gc
      ? `; GC ${figure(gc.pausesPerSecond)} pauses/s, mean ${figure(gc.meanPauseMs, 2)} ms, ${figure(gc.pausedShare * 100, 2)} % of the time`
      : '')
  );
}

export async function measureOpenLoop(options: {
  scenario: OpenLoopScenario;
  service: OpenLoopTarget;
  baseline?: OpenLoopTarget;
  load: LoadGenerator;
  settings: OpenLoopSettings;
  /** After each baseline round (bench/run.ts cancels what it left running in PostgreSQL). */
  afterBaseline?: () => Promise<void>;
  /** The 1, 5 and 15 minute load averages when the scenario ends. */
  loadavg: () => string;
  log: (message: string) => void;
}): Promise<OpenLoopReport> {
  const { scenario, service, baseline, load, settings, log } = options;
  const targets = baseline ? [service, baseline] : [service];
  const round = async (target: OpenLoopTarget, rate: number, seconds: number): Promise<MeasuredRound> => {
    target.server.assertRunning();
    const gcBefore = target === service ? await gcTotals(target.url) : undefined;
    const cpuBefore = cpuMillisecondsOf(target.server.pid);
    const result = await load.runOpenLoop({ url: target.url, rate, duration: seconds, requests: scenario.requests });
    target.server.assertRunning();
    const cpuMs = cpuMillisecondsOf(target.server.pid) - cpuBefore;
    const gcAfter = gcBefore ? await gcTotals(target.url) : undefined;
    if (target === baseline) await options.afterBaseline?.();
    return {
      result,
      cpuMs,
      seconds,
      gc: gcBefore && gcAfter ? { count: gcAfter.count - gcBefore.count, seconds: gcAfter.seconds - gcBefore.seconds } : undefined,
    };
  };

  const rates: RateFigures[] = [];
  for (const share of OPEN_LOOP_SHARES) {
    const rate = Math.max(1, Math.round(share * scenario.maximum.requestsPerSecond));
    const measured = new Map<OpenLoopTarget, MeasuredRound[]>(targets.map((target) => [target, []]));
    for (const target of targets) await round(target, rate, settings.warmup);
    for (let index = 0; index < settings.rounds; index++) {
      for (const target of targets) measured.get(target)!.push(await round(target, rate, settings.duration));
    }
    for (const target of targets) {
      const figures = summariseRate(target.name, rate, share, measured.get(target)!);
      rates.push(figures);
      log(`  ${scenario.title} ${rateLine(figures)}`);
    }
  }

  // The same rate is a higher share of a slower server's maximum, and an open loop's tail grows with the
  // share: the baseline at the service's share of its own maximum tells the service's tail from its throughput.
  const ours = rates.find((entry) => entry.target === 'service' && entry.share === 0.5);
  if (baseline && ours) {
    const share = Math.min(1, ours.rate / scenario.serviceMaximum);
    const rate = Math.max(1, Math.round(share * scenario.maximum.requestsPerSecond));
    await round(baseline, rate, settings.warmup);
    const measured: MeasuredRound[] = [];
    for (let index = 0; index < settings.rounds; index++) measured.push(await round(baseline, rate, settings.duration));
    const figures = { ...summariseRate('baseline', rate, share, measured), equalLoad: true };
    rates.push(figures);
    log(`  ${scenario.title} ${rateLine(figures)}`);
  }

  const knee = await findKnee(
    scenario,
    (rate) => round(service, rate, settings.probe / 3).then(() => round(service, rate, settings.probe)),
    log,
  );

  // Last, so that no other measure starts behind an overload (the knee's first probe is one already).
  const recovery: RecoveryFigures[] = [];
  for (const target of targets) {
    const tail = rates.find((entry) => entry.target === target.name && entry.share === AFTER_SHARE && !entry.equalLoad)!;
    const overloadRate = Math.max(1, Math.round(OVERLOAD_SHARE * scenario.maximum.requestsPerSecond));
    target.server.assertRunning();
    const startedAt = new Date().toISOString();
    const { perSecond } = await load.runOpenLoop({
      url: target.url,
      rate: overloadRate,
      duration: settings.overload,
      then: { rate: tail.rate, duration: settings.recovery },
      requests: scenario.requests,
    });
    target.server.assertRunning();
    if (target === baseline) await options.afterBaseline?.();
    const figures = recoveryOf(target.name, startedAt, tail, overloadRate, settings.overload, perSecond!);
    recovery.push(figures);
    log(`  ${scenario.title} ${recoveryLine(figures)}`);
  }
  return {
    id: scenario.id,
    title: scenario.title,
    maximum: scenario.maximum,
    serviceMaximum: scenario.serviceMaximum,
    p99BoundMs: scenario.p99BoundMs,
    rates,
    knee,
    recovery,
    loadavg: options.loadavg(),
  };
}

function recoveryOf(
  target: TargetName,
  startedAt: string,
  tail: RateFigures,
  overloadRate: number,
  overloadSeconds: number,
  perSecond: SecondFigures[],
): RecoveryFigures {
  const boundMs = RATIO_BOUND * tail.p99;
  const after = perSecond.slice(overloadSeconds);
  const back = (second: SecondFigures) => second.failed === 0 && second.ok > 0 && second.p99 <= boundMs;
  const first = after.findIndex(back);
  const during = perSecond.slice(0, overloadSeconds);
  return {
    target,
    startedAt,
    overload: {
      rate: overloadRate,
      seconds: overloadSeconds,
      answeredPerSecond: during.reduce((sum, second) => sum + second.done, 0) / overloadSeconds,
    },
    rate: tail.rate,
    tailMs: tail.p99,
    boundMs,
    backAfterSeconds: first === -1 ? null : first,
    slowSecondsAfter: first === -1 ? 0 : after.slice(first).filter((second) => !back(second)).length,
    perSecond,
  };
}

/** The recovery's log line: when it was back, and each second's p99 after the overload. */
function recoveryLine(figures: RecoveryFigures): string {
  const after = figures.perSecond.slice(figures.overload.seconds);
  return (
    `recovery, ${figures.target}: ${figures.overload.rate}/s for ${figures.overload.seconds} s (${Math.round(figures.overload.answeredPerSecond)}/s answered), ` +
    `then ${figures.rate}/s: ${recoveryFigure(figures)}; p99 by second after the overload ` +
    after.map((second) => (second.failed ? `${figure(second.p99, 0)} (${second.failed} failed)` : figure(second.p99, 0))).join(', ') +
    ` ms, answers ended by second ${after.map((second) => second.done).join(', ')}`
  );
}

function recoveryFigure(figures: RecoveryFigures): string {
  const bound = `${RATIO_BOUND} × its ${figure(figures.tailMs)} ms at that rate before, ${figure(figures.boundMs)} ms`;
  // A server that answered the overload's rate in full was not overloaded: nothing was left to catch up on.
  const kept = figures.overload.answeredPerSecond >= 0.95 * figures.overload.rate ? ' (it kept up with the overload)' : '';
  if (figures.backAfterSeconds === null)
    return `never back within ${bound}, in ${figures.perSecond.length - figures.overload.seconds} s${kept}`;
  return (
    `back within ${bound}, after ${figures.backAfterSeconds} s` +
    (figures.slowSecondsAfter ? ` (${figures.slowSecondsAfter} later second${figures.slowSecondsAfter === 1 ? '' : 's'} over it)` : '') +
    kept
  );
}

interface MeasuredRound {
  result: OpenLoopAnswer;
  cpuMs: number;
  seconds: number;
  gc?: { count: number; seconds: number };
}

function summariseRate(target: TargetName, rate: number, share: number, rounds: MeasuredRound[]): RateFigures {
  // Every measured round's latencies together: p99.9 needs more answers than one round of a slow route has.
  const latencies = Float64Array.from(rounds.flatMap(({ result }) => result.latenciesMs)).sort();
  const answers = rounds.reduce((sum, { result }) => sum + Object.values(result.statusCounts).reduce((a, b) => a + b, 0), 0);
  const non2xx: Record<string, number> = {};
  for (const { result } of rounds) {
    for (const [status, count] of Object.entries(result.statusCounts)) {
      if (!status.startsWith('2')) non2xx[status] = (non2xx[status] ?? 0) + count;
    }
  }
  const sortedRates = rounds.map(({ result }) => result.answeredPerSecond).sort((a, b) => a - b);
  return {
    target,
    rate,
    share,
    answeredPerSecond: sortedRates[Math.floor(sortedRates.length / 2)],
    p50: percentileOf(latencies, 0.5),
    p99: percentileOf(latencies, 0.99),
    p999: percentileOf(latencies, 0.999),
    max: latencies[latencies.length - 1] ?? NaN,
    cpuMsPerRequest: answers ? rounds.reduce((sum, { cpuMs }) => sum + cpuMs, 0) / answers : NaN,
    errors: rounds.reduce((sum, { result }) => sum + result.errors, 0),
    non2xx,
    sendLagP99: Math.max(...rounds.map(({ result }) => result.sendLagMs.p99)),
    connections: Math.max(...rounds.map(({ result }) => result.connections)),
    firstSlowAtSeconds: rounds.map(({ result }) => result.firstSlowAtSeconds ?? null),
    gc: gcFigures(rounds, answers),
  };
}

function gcFigures(rounds: MeasuredRound[], answers: number): GcFigures | undefined {
  if (rounds.some((round) => !round.gc)) return undefined;
  const count = rounds.reduce((sum, round) => sum + round.gc!.count, 0);
  const pausedMs = rounds.reduce((sum, round) => sum + round.gc!.seconds, 0) * 1000;
  const seconds = rounds.reduce((sum, round) => sum + round.seconds, 0);
  return {
    pausesPerSecond: count / seconds,
    meanPauseMs: count ? pausedMs / count : NaN,
    pausedShare: pausedMs / 1000 / seconds,
    pauseMsPerThousand: answers ? (pausedMs / answers) * 1000 : NaN,
  };
}

/**
 * Upwards from 75 % of the maximum by steps of 10 % until a probe fails, then two halvings between the
 * last rate that held and the first that did not; downwards by halving if 25 % already fails.
 */
async function findKnee(
  scenario: OpenLoopScenario,
  probeAt: (rate: number) => Promise<MeasuredRound>,
  log: (message: string) => void,
): Promise<OpenLoopReport['knee']> {
  const maximum = scenario.maximum.requestsPerSecond;
  const probes: KneeProbe[] = [];
  const probe = async (share: number): Promise<KneeProbe> => {
    const rate = Math.max(1, Math.round(share * maximum));
    const { result } = await probeAt(rate);
    const p99 = percentileOf(result.latenciesMs, 0.99);
    const answers = Object.values(result.statusCounts).reduce((a, b) => a + b, 0);
    const errors = result.errors + answers - result.latenciesMs.length;
    const ok = p99 < KNEE_P99_MS && errors === 0 && result.answeredPerSecond >= 0.95 * rate;
    const entry = { rate, p99: Number(p99.toFixed(1)), answeredPerSecond: Math.round(result.answeredPerSecond), errors, ok };
    probes.push(entry);
    log(
      `  knee of ${scenario.title}: ${rate}/s → p99 ${figure(p99)} ms, ${entry.answeredPerSecond}/s answered, ${errors} errors: ${ok ? 'holds' : 'over'}`,
    );
    return entry;
  };
  let held: number | undefined;
  let failed: number | undefined;
  if ((await probe(0.75)).ok) {
    held = 0.75;
    // At most twice the maximum: beyond it a server is past any sustainable rate.
    for (let share = 0.85; share <= 2; share += 0.1) {
      if ((await probe(share)).ok) held = share;
      else {
        failed = share;
        break;
      }
    }
  } else {
    failed = 0.75;
    for (let share = 0.375; share >= 0.05; share /= 2) {
      if ((await probe(share)).ok) {
        held = share;
        break;
      }
      failed = share;
    }
  }
  if (held !== undefined && failed !== undefined) {
    let [low, high] = [held, failed];
    for (let step = 0; step < 2; step++) {
      const middle: number = (low + high) / 2;
      if ((await probe(middle)).ok) low = middle;
      else high = middle;
    }
    held = low;
  }
  if (held === undefined) return { probes };
  const rate = Math.max(1, Math.round(held * maximum));
  return { rate, share: held, p99: probes.find((entry) => entry.rate === rate && entry.ok)?.p99, probes };
}

/** The table of every rate, as Markdown. */
export function openLoopTable(reports: OpenLoopReport[]): string {
  const header = [
    'Scenario',
    'rate /s (share of max)',
    'Server',
    'answered /s',
    'p50 ms',
    'p99 ms',
    'p99.9 ms',
    'max ms',
    'CPU ms/req',
    'errors',
    'GC pauses/s × mean ms (time)',
  ];
  const rows = reports.flatMap((report) =>
    report.rates.map((entry, index) => [
      index === 0 ? `${report.title} (max ${Math.round(report.maximum.requestsPerSecond)}/s, ${report.maximum.of})` : '',
      entry.target === 'service' || entry.equalLoad || report.rates.every((other) => other.target === 'service')
        ? `${entry.rate} (${figure(entry.share * 100, 0)} %${entry.equalLoad ? ", the service's own share at 50 %" : ''})`
        : '',
      entry.target,
      String(Math.round(entry.answeredPerSecond)),
      figure(entry.p50),
      figure(entry.p99),
      figure(entry.p999),
      figure(entry.max),
      figure(entry.cpuMsPerRequest, 3),
      String(entry.errors + Object.values(entry.non2xx).reduce((a, b) => a + b, 0)),
      entry.gc
        ? `${figure(entry.gc.pausesPerSecond)} × ${figure(entry.gc.meanPauseMs, 2)} (${figure(entry.gc.pausedShare * 100, 1)} %)`
        : '',
    ]),
  );
  return markdownTable(header, rows);
}

function markdownTable(header: string[], rows: string[][]): string {
  const widths = header.map((name, column) => Math.max(name.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** The recovery after an overload, as Markdown: one row per scenario and server, with the p99 of each second after it. */
export function recoveryTable(reports: OpenLoopReport[]): string {
  const header = [
    'Scenario',
    'Server',
    'overload /s (answered)',
    'then /s',
    'tail before ms',
    'back after s',
    'p99 ms by second after the overload',
  ];
  const rows = reports.flatMap((report) =>
    report.recovery.map((entry, index) => [
      index === 0 ? report.title : '',
      entry.target,
      `${entry.overload.rate} for ${entry.overload.seconds} s (${Math.round(entry.overload.answeredPerSecond)})`,
      String(entry.rate),
      figure(entry.tailMs),
      entry.backAfterSeconds === null
        ? 'never'
        : `${entry.backAfterSeconds}${entry.slowSecondsAfter ? ` (+${entry.slowSecondsAfter} later)` : ''}`,
      entry.perSecond
        .slice(entry.overload.seconds)
        .map((second) => (second.failed ? `${figure(second.p99, 0)}!` : figure(second.p99, 0)))
        .join(' '),
    ]),
  );
  return markdownTable(header, rows);
}

export interface OpenLoopGoal {
  goal: string;
  met?: boolean;
  figure: string;
}

/** The goal lines at 50 % (PASS or MISS), the knees (measurements), and whether every rate was kept. */
export function openLoopGoals(reports: OpenLoopReport[]): OpenLoopGoal[] {
  const lines: OpenLoopGoal[] = [];
  for (const report of reports) {
    const half = (target: TargetName) => report.rates.find((entry) => entry.share === 0.5 && entry.target === target && !entry.equalLoad);
    const [ours, theirs] = [half('service'), half('baseline')];
    const equal = report.rates.find((entry) => entry.equalLoad);
    if (ours && report.p99BoundMs !== undefined) {
      const withinBaseline = theirs ? ours.p99 <= RATIO_BOUND * theirs.p99 : true;
      lines.push({
        goal:
          `${report.title} at 50 % of the ${report.maximum.of}'s maximum (${ours.rate}/s): service p99 under ${report.p99BoundMs} ms` +
          (theirs ? ` and <= ${RATIO_BOUND} × the baseline's` : ''),
        met: ours.p99 < report.p99BoundMs && withinBaseline && ours.errors === 0,
        figure:
          `${figure(ours.p99)} ms` +
          (theirs ? ` vs ${figure(theirs.p99)} ms (${figure(ours.p99 / theirs.p99, 2)} ×)` : '') +
          // The same rate is a higher share of a slower server's maximum, and queueing grows with the share.
          `; that rate is ${figure((100 * ours.rate) / report.serviceMaximum, 0)} % of the service's own closed-loop maximum; load ${report.loadavg}`,
      });
      if (equal) {
        lines.push({
          goal: `${report.title} at equal load, ${figure(equal.share * 100, 0)} % of each server's own closed-loop maximum: service p99 against the baseline's`,
          figure: `${figure(ours.p99)} ms at ${ours.rate}/s vs ${figure(equal.p99)} ms at ${equal.rate}/s (${figure(ours.p99 / equal.p99, 2)} ×)`,
        });
      }
    }
    if (report.recovery.length > 0) {
      lines.push({
        goal: `recovery of ${report.title} after ${report.recovery[0].overload.seconds} s at ${figure(OVERLOAD_SHARE * 100, 0)} %, at ${figure(AFTER_SHARE * 100, 0)} % again: each second's p99 within ${RATIO_BOUND} × the ${figure(AFTER_SHARE * 100, 0)} % round's`,
        figure: report.recovery.map((entry) => `${entry.target} ${recoveryFigure(entry)}`).join('; '),
      });
    }
    const { knee } = report;
    const over = knee.probes.filter((probe) => !probe.ok).sort((a, b) => a.rate - b.rate)[0];
    lines.push({
      goal: `knee of ${report.title}, the highest rate with the service's p99 under ${KNEE_P99_MS} ms`,
      figure:
        (knee.rate === undefined
          ? `none found down to ${Math.min(...knee.probes.map((probe) => probe.rate))}/s`
          : `${knee.rate}/s (${figure((knee.share ?? 0) * 100, 0)} % of the ${report.maximum.of}'s closed-loop maximum, p99 ${figure(knee.p99 ?? NaN)} ms)`) +
        (over ? `; ${over.rate}/s gave p99 ${figure(over.p99)} ms, ${over.answeredPerSecond}/s answered` : ''),
    });
  }
  const unkept = reports.flatMap((report) =>
    report.rates
      .filter((entry) => entry.answeredPerSecond < 0.95 * entry.rate || entry.errors > 0 || Object.keys(entry.non2xx).length > 0)
      .map(
        (entry) =>
          `${report.title} ${entry.target} at ${entry.rate}/s: ${Math.round(entry.answeredPerSecond)}/s answered, ${entry.errors} errors`,
      ),
  );
  lines.push({
    goal: 'every open-loop rate answered in full (>= 95 % of the rate, all 2xx)',
    met: unkept.length === 0,
    figure: unkept.join('; ') || 'all',
  });
  const lag = Math.max(...reports.flatMap((report) => report.rates.map((entry) => entry.sendLagP99)));
  lines.push({
    goal: 'the load process kept its schedule (send lag p99 under 5 ms)',
    met: lag < 5,
    figure: `worst round ${figure(lag, 2)} ms`,
  });
  return lines;
}
