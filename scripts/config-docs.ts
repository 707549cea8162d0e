/**
 * Rewrites README "Configuration"'s table and `.env.example` from src/config/environment.schema.ts
 * (`npm run config:docs`, from the repository's root).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { envExample, withReadmeTable } from '../src/config/environment.docs.js';

writeFileSync('README.md', withReadmeTable(readFileSync('README.md', 'utf8')));
writeFileSync('.env.example', envExample());
console.log('README.md (Configuration) and .env.example now follow src/config/environment.schema.ts');
