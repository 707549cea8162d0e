// `npm run test:faults`: several service processes over one PostgreSQL, with crashes and outages.
// Separate from `npm test`'s projects: it builds the service and runs for about two minutes.
import { shared } from './jest.config.js';

export default {
  ...shared,
  displayName: 'faults',
  testMatch: ['<rootDir>/test/faults/**/*.faults-spec.ts'],
  testTimeout: 300_000,
};
