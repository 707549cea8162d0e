import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The Node.js flags production starts the service with: those of `npm run start:prod`, which the
 * Dockerfile and the systemd unit repeat (test/startup.e2e-spec.ts checks that they do). The benchmark
 * and the start-up tests launch the service with them, so that they measure and test what runs.
 */
export function productionNodeFlags(root = process.cwd()): string[] {
  const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const match = /^node((?:\s+--\S+)*)\s+dist\/src\/main\.js$/.exec(packageJson.scripts['start:prod']);
  if (!match) throw new Error('package.json: start:prod must read `node [--flag ...] dist/src/main.js`');
  return match[1].trim().split(/\s+/).filter(Boolean);
}
