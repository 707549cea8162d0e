/**
 * One table from several benchmark runs: every figure is the median over the measured rounds of all
 * the runs given (errors and non-2xx answers are summed, peak RSS is the highest), so that two or three
 * runs on a shared machine give steadier figures than any one of them.
 *
 *   npx tsx bench/combine.ts bench/results/<run 1>.json bench/results/<run 2>.json
 */
import { readFileSync } from 'node:fs';
import { goals, median, type ScenarioReport, type Summary, table, type TargetName } from './report.js';

interface Results {
  startedAt: string;
  options: { connections: number };
  machine: { loadAverageAtStart?: number[]; loadAverageAtEnd: number[] };
  scenarios: ScenarioReport[];
  serviceRssPeakMb: number;
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: tsx bench/combine.ts <results.json> [<results.json> ...]');
  process.exit(2);
}
const runs = files.map((file) => JSON.parse(readFileSync(file, 'utf8')) as Results);

function combine(id: string, target: TargetName): Summary | undefined {
  const reports = runs.flatMap((run) => run.scenarios.filter((scenario) => scenario.id === id));
  const summaries = reports.map((report) => report[target]).filter((summary): summary is Summary => summary !== undefined);
  if (summaries.length === 0) return undefined;
  const rounds = reports.flatMap((report) => report.rounds.filter((round) => round.target === target && round.round > 0));
  const non2xx: Record<string, number> = {};
  for (const summary of summaries) {
    for (const [status, count] of Object.entries(summary.non2xx)) non2xx[status] = (non2xx[status] ?? 0) + count;
  }
  return {
    rounds: rounds.length,
    requestsPerSecond: median(rounds.map((round) => round.requestsPerSecond)),
    p50: median(rounds.map((round) => round.p50)),
    p99: median(rounds.map((round) => round.p99)),
    cpuMsPerRequest: median(rounds.map((round) => round.cpuMsPerRequest)),
    databaseCpuMsPerRequest: median(rounds.map((round) => round.databaseCpuMsPerRequest)),
    errors: summaries.reduce((sum, summary) => sum + summary.errors, 0),
    non2xx,
    peakRssMb: Math.max(...summaries.map((summary) => summary.peakRssMb)),
    requestsPerSecondByRound: rounds.map((round) => round.requestsPerSecond),
  };
}

const ids = [...new Set(runs.flatMap((run) => run.scenarios.map((scenario) => scenario.id)))];
const reports: ScenarioReport[] = ids.map((id) => {
  const first = runs.flatMap((run) => run.scenarios).find((scenario) => scenario.id === id)!;
  const service = combine(id, 'service')!;
  const baseline = combine(id, 'baseline');
  const checks = runs.flatMap((run) => run.scenarios.filter((scenario) => scenario.id === id && scenario.check));
  return {
    id,
    title: first.title,
    service,
    baseline,
    ratio: baseline ? service.requestsPerSecond / baseline.requestsPerSecond : undefined,
    check: checks.length
      ? {
          ok: checks.every((scenario) => scenario.check!.ok),
          summary: checks.map((scenario) => scenario.check!.summary).join(' | '),
          details: {},
        }
      : undefined,
    rounds: [],
  };
});

console.log(
  `Medians over the measured rounds of ${runs.length} run(s): ${runs
    .map((run) => `${run.startedAt} (load average ${run.machine.loadAverageAtStart?.[0] ?? '?'} -> ${run.machine.loadAverageAtEnd[0]})`)
    .join(', ')}\n`,
);
console.log(table(reports));
console.log('');
for (const report of reports.filter((entry) => entry.check)) console.log(`${report.check!.ok ? 'OK  ' : 'FAIL'} ${report.title}`);
const rss = Math.max(...runs.map((run) => run.serviceRssPeakMb));
for (const goal of goals(reports, runs[0].options.connections, rss))
  console.log(`${goal.met ? 'PASS' : 'MISS'} ${goal.goal}: ${goal.figure}`);
console.log('\nreq/s of each round, service | baseline:');
for (const report of reports) {
  console.log(
    `  ${report.title}: ${report.service.requestsPerSecondByRound.join(' ')}${report.baseline ? ` | ${report.baseline.requestsPerSecondByRound.join(' ')}` : ''}`,
  );
}
