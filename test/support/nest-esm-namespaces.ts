// Publishes the ESM instances of @nestjs/common and @nestjs/core for the CommonJS packages that
// require them under jest (see nest-require-transformer.cjs). Runs before each test file, in its
// module registry, so the packages share the very classes and decorators the service uses.
import * as common from '@nestjs/common';
import * as core from '@nestjs/core';

(globalThis as { __nestEsmNamespaces?: Record<string, unknown> }).__nestEsmNamespaces = {
  '@nestjs/common': common,
  '@nestjs/core': core,
};
