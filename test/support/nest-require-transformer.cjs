// @nestjs/throttler 6 is CommonJS and requires @nestjs/common and @nestjs/core, which are ESM-only
// since Nest 12. Node 20.19+ loads that (require(esm)), so the service runs; jest's own module system
// cannot before Node 24.9 ("Must use import to load ES Module"). This transform, for those packages
// only, replaces the two requires with the ESM instances that nest-esm-namespaces.ts publishes.
const { createHash } = require('node:crypto');

const REQUIRE = /require\((["'])(@nestjs\/(?:common|core))\1\)/g;

module.exports = {
  process(source) {
    return {
      code: source.replace(REQUIRE, (_match, _quote, name) => `globalThis.__nestEsmNamespaces[${JSON.stringify(name)}]`),
    };
  },
  getCacheKey(source, path) {
    return createHash('sha256').update('nest-require-transformer 1').update(path).update(source).digest('hex');
  },
};
