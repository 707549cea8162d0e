import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/**
 * The docs stay true to the repository: every file or folder of the repository that README.md,
 * SECURITY.md or a page of docs/ names (in backticks, or as a relative link) exists. A renamed file
 * fails here instead of misleading the next reader. (The configuration table is checked against the
 * schema by src/config/environment.docs.spec.ts.)
 */
const ROOT = process.cwd();
const PAGES = [
  'README.md',
  'SECURITY.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];
const TOP_FOLDERS = ['src', 'test', 'docs', 'scripts', 'bench', 'sdk', 'deploy', '.ci'];

/** The repository paths a page names: `src/...`-like backticked paths, and relative links. */
function pathsNamedIn(page: string): string[] {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const named = new Set<string>();
  for (const [, code] of text.matchAll(/`([^`\s]+)`/g)) {
    const path = code.replace(/[):,.]+$/, '').replace(/#.*$/, '');
    if (TOP_FOLDERS.some((folder) => path.startsWith(`${folder}/`)) && !/[*<>{}]/.test(path)) named.add(path.replace(/:\d+(-\d+)?$/, ''));
  }
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
    named.add(normalize(join(dirname(page), target.replace(/#.*$/, ''))));
  }
  return [...named].sort();
}

describe('the docs', () => {
  it.each(PAGES)('%s names only files that exist', (page) => {
    const missing = pathsNamedIn(page).filter((path) => !existsSync(join(ROOT, path)));
    expect(missing).toEqual([]);
  });
});
