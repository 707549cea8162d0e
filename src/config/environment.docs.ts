import { DEPLOYMENT_VARIABLES, Environment } from './environment.schema.js';
import { type DeclaredVariable, declaredVariables } from './variables.js';

/**
 * README "Configuration" and `.env.example`, printed from the schema (`npm run config:docs`); a unit
 * test fails when either file differs from what is printed here.
 */

export const README_TABLE_START = '<!-- Generated from src/config/environment.schema.ts by `npm run config:docs`: edit there. -->';
export const README_TABLE_END = '<!-- End of the generated table. -->';

const ENV_EXAMPLE_HEADER = [
  '# Copy to .env and adjust; the service reads .env at start (variables already set win).',
  '# Every variable is optional outside production; see README "Configuration".',
  '# Generated from src/config/environment.schema.ts by `npm run config:docs`: edit there.',
];

/** Where `.env.example`'s comments start, for lines short enough to leave room. */
const COMMENT_COLUMN = 35;

function defaultText(variable: DeclaredVariable): string {
  if (variable.defaultText !== undefined) return variable.defaultText;
  return typeof variable.default === 'string' ? `\`${variable.default}\`` : 'unset';
}

/** The README's table of every variable: variables that share a row (`rowOf`) are named in the first one's. */
export function readmeTable(): string {
  const variables = declaredVariables(Environment);
  const rows = variables.flatMap((variable) => {
    if (!('meaning' in variable)) return [];
    const names = [variable, ...variables.filter((other) => 'rowOf' in other && other.rowOf === variable.name)].map(({ name }) => name);
    return [{ names, defaultText: defaultText(variable), meaning: variable.meaning }];
  });
  const deployment = DEPLOYMENT_VARIABLES.map((variable) => ({
    names: [variable.name],
    defaultText: variable.defaultText,
    meaning: `Read by \`${variable.readBy}\`, not by the service. ${variable.meaning}`,
  }));
  const cell = (text: string) => text.replaceAll('|', '\\|');
  return [
    '| Variable | Default | Meaning |',
    '|---|---|---|',
    ...[...rows, ...deployment].map(
      ({ names, defaultText, meaning }) => `| ${names.map((name) => `\`${name}\``).join(', ')} | ${cell(defaultText)} | ${cell(meaning)} |`,
    ),
  ].join('\n');
}

/** `readme` with the text between the table's markers replaced by the table. */
export function withReadmeTable(readme: string): string {
  const start = readme.indexOf(README_TABLE_START);
  const end = readme.indexOf(README_TABLE_END);
  if (start < 0 || end < start) throw new Error(`README.md must hold the lines ${README_TABLE_START} and ${README_TABLE_END}`);
  return `${readme.slice(0, start + README_TABLE_START.length)}\n${readmeTable()}\n${readme.slice(end)}`;
}

function exampleLine(name: string, value: string | undefined, comment: string | undefined): string {
  if (value === undefined) throw new Error(`${name} needs an example value for .env.example`);
  const line = `# ${name}=${value}`;
  if (comment === undefined) return line;
  return `${line.length < COMMENT_COLUMN - 2 ? line.padEnd(COMMENT_COLUMN) : `${line}   `}# ${comment}`;
}

/** The whole `.env.example`: every variable commented out, with its default or an example value. */
export function envExample(): string {
  const service = declaredVariables(Environment).map((variable) =>
    exampleLine(variable.name, variable.example ?? (typeof variable.default === 'string' ? variable.default : undefined), variable.comment),
  );
  const readers = [...new Set(DEPLOYMENT_VARIABLES.map(({ readBy }) => readBy))];
  const deployment = readers.flatMap((readBy) => [
    '',
    `# Read by ${readBy}, not by the service:`,
    ...DEPLOYMENT_VARIABLES.filter((variable) => variable.readBy === readBy).map(({ name, example, comment }) =>
      exampleLine(name, example, comment),
    ),
  ]);
  return [...ENV_EXAMPLE_HEADER, ...service, ...deployment, ''].join('\n');
}
