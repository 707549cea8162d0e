import { Foundation1763800000000 } from './1763800000000-Foundation.js';

// Listed, not globbed: globs also match index.js and .d.ts files and TypeORM then reports
// "Duplicate migrations". The service, the CLI (ormconfig.ts) and the test set-up read this list.
export const MIGRATIONS = [Foundation1763800000000];
