/**
 * The dependency rules of src/ (docs/ARCHITECTURE.md, "Modules that point one way"), checked by
 * `npm run lint`. Type-only imports count: a type from a feature ties infrastructure to it as much as
 * a value does.
 */
const INFRASTRUCTURE = ['common', 'config', 'database', 'metrics', 'redis', 'security', 'audit', 'realtime'];
const infrastructure = `^src/(${INFRASTRUCTURE.join('|')})/`;

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'infrastructure-imports-no-feature',
      comment:
        'Infrastructure serves every feature and knows none: a feature gives it what it needs (an entity list at the ' +
        'composition root, an augmentation of realtime/events.ts, a provider), never the other way.',
      severity: 'error',
      from: { path: infrastructure },
      to: { path: '^src/', pathNot: [infrastructure] },
    },
    {
      name: 'no-folder-cycles',
      comment: 'Folders of src/ that import each other in a cycle: move what both need down, or invert the dependency.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/[^/]+$' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    exclude: { path: '\\.(spec|e2e-spec)\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // Imports end in .js (ESM); the sources are .ts.
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
