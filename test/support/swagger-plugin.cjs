// ts-jest runs AST transformers that export name, version and factory; the Swagger CLI plugin exports
// `before`. Without it the DTO schemas and route summaries that `nest build` generates are missing in
// the e2e tests. The options mirror nest-cli.json.
const plugin = require('@nestjs/swagger/plugin');
const nestCli = require('../../nest-cli.json');

const options = nestCli.compilerOptions.plugins.find((entry) => entry.name === '@nestjs/swagger').options;

module.exports = {
  name: 'nestjs-swagger-plugin',
  version: 1,
  factory: (compiler) => plugin.before(options, compiler.program),
};
