import { getMetadataStorage } from 'class-validator';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { envExample, withReadmeTable } from './environment.docs.js';
import { DEPLOYMENT_VARIABLES, Environment } from './environment.schema.js';
import { declaredVariables } from './variables.js';

const RUN_THE_SCRIPT = 'differs from src/config/environment.schema.ts: run `npm run config:docs`';

const declared = new Set(declaredVariables(Environment).map(({ name }) => name));

/** The code the service runs (the scripts too): it reads the environment through the schema. */
const SERVICE_CODE = ['src', 'scripts', 'ormconfig.ts'];
/** Test and benchmark tools: they may also read their own settings, never the service's undeclared ones. */
const TOOL_CODE = ['test', 'bench'];
const TOOL_VARIABLES = new Set([
  // Set by test/support/global-setup.mjs for the suites' workers.
  'TEST_DATABASE_ADMIN_URL',
  'TEST_DATABASE_URL',
  'TEST_TEMPLATE_DATABASE',
  'TEST_DATA_DIR',
  // bench/baseline.ts: the folder it serves the media scenario's file from, and the one its upload
  // route writes to (bench/run.ts sets both).
  'MEDIA_STATIC_DIR',
  'MEDIA_UPLOAD_DIR',
  // test/fuzz.e2e-spec.ts and `npm run test:fuzz`.
  'FUZZ_SEED',
  'FUZZ_RUNS',
  'FUZZ_ONLY',
  // Where the suites find the programs they start.
  'REDIS_SERVER_PATH',
  'PGBOUNCER_PATH',
  'CHROMIUM_PATH',
  // Passed on to the processes the suites and the benchmark start.
  'PATH',
  'HOME',
]);
/** Where the whole environment may be read: loadConfig hands it to the schema. */
const READS_THE_WHOLE_ENVIRONMENT = ['src/config/environment.ts'];

function sourceFiles(path: string): string[] {
  if (statSync(path).isFile()) return [path];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|mts|cts|js|mjs|cjs)$/.test(file) && !file.includes('node_modules'))
    .map((file) => join(path, file));
}

/** Every read of the environment in `file`: the variable's name, or undefined for the whole object or a computed name. */
function environmentReads(file: string): Array<string | undefined> {
  const text = readFileSync(file, 'utf8');
  const reads = [...text.matchAll(/process\.env\b(?:\.(\w+)|\[\s*['"`](\w+)['"`]\s*\])?/g)].map((match) => match[1] ?? match[2]);
  const importsEnv = /import\s*\{[^}]*\benv\b[^}]*\}\s*from\s*['"](?:node:)?process['"]/.test(text);
  return importsEnv ? [...reads, undefined] : reads;
}

describe('the configuration schema', () => {
  it('prints README "Configuration" and .env.example as they are', () => {
    const outOfDate: string[] = [];
    const readme = readFileSync('README.md', 'utf8');
    if (withReadmeTable(readme) !== readme) outOfDate.push(`README.md's configuration table ${RUN_THE_SCRIPT}`);
    if (readFileSync('.env.example', 'utf8') !== envExample()) outOfDate.push(`.env.example ${RUN_THE_SCRIPT}`);
    expect(outOfDate).toEqual([]);
  });

  it('declares every variable the service reads, and the service reads nothing else', () => {
    const undeclared: string[] = [];
    for (const file of SERVICE_CODE.flatMap(sourceFiles)) {
      for (const name of environmentReads(file)) {
        if (name === undefined && !READS_THE_WHOLE_ENVIRONMENT.includes(file)) {
          undeclared.push(`${file} reads the environment by a computed name: read it through src/config/environment.schema.ts`);
        } else if (name !== undefined && !declared.has(name)) {
          undeclared.push(`${file} reads ${name}, which src/config/environment.schema.ts does not declare`);
        }
      }
    }
    for (const file of TOOL_CODE.flatMap(sourceFiles)) {
      for (const name of environmentReads(file)) {
        if (name !== undefined && !declared.has(name) && !TOOL_VARIABLES.has(name)) {
          undeclared.push(`${file} reads ${name}: declare it in src/config/environment.schema.ts, or as a tool's own setting in this test`);
        }
      }
    }
    expect(undeclared).toEqual([]);
  });

  it("declares every variable docker-compose.yml reads, the service's or its own", () => {
    const compose = readFileSync('docker-compose.yml', 'utf8');
    const deployment = new Set(DEPLOYMENT_VARIABLES.map(({ name }) => name));
    const read = new Set([...compose.matchAll(/\$\{(\w+)/g)].map((match) => match[1]));
    const undeclared = [...read].filter((name) => !declared.has(name) && !deployment.has(name));
    expect(undeclared.map((name) => `docker-compose.yml reads ${name}: declare it in src/config/environment.schema.ts`)).toEqual([]);
    for (const { name, readBy } of DEPLOYMENT_VARIABLES) {
      expect({ name, read: readFileSync(readBy, 'utf8').includes(`\${${name}`) }).toEqual({ name, read: true });
      expect({ name, alsoDeclaredForTheService: declared.has(name) }).toEqual({ name, alsoDeclaredForTheService: false });
    }
  });

  it('reads every property it checks from the variable of that name, and shows every variable in a row', () => {
    // A checked property without @Variable() would never be read: always unset, whatever the environment says.
    const checked = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(Environment, '', false, false)
        .map((m) => m.propertyName),
    );
    expect([...checked].filter((property) => !declared.has(property))).toEqual([]);
    // A variable documented in another's row: that row must be one of its own, or neither would show.
    const rows = new Set(declaredVariables(Environment).flatMap((variable) => ('meaning' in variable ? [variable.name] : [])));
    const rowOwners = declaredVariables(Environment).flatMap((variable) => ('rowOf' in variable ? [variable.rowOf] : []));
    expect(rowOwners.filter((owner) => !rows.has(owner))).toEqual([]);
  });
});
