import { execFile } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { OPENAPI_FILE } from '../scripts/generate-sdk.js';
import { dereference } from './support/openapi-refs.js';
import { schemaValidator } from './support/contract.js';
import { TestApp } from './support/test-app.js';

type Json = Record<string, any>;

/**
 * The OpenAPI document says exactly what the service does: it is a valid OpenAPI 3.1 document, and
 * states what generated clients need (security alternatives, integers and bounds, closed bodies,
 * read-only fields, maps, formats, shared errors, headers, typed filters, body shapes, links). Every
 * answer of every e2e suite is also checked against it (test/support/contract.ts).
 */
describe('the OpenAPI document', () => {
  let api: TestApp;
  let document: Json;
  const schema = (name: string): Json => document.components.schemas[name];
  const operation = (method: string, path: string): Json => document.paths[path][method];
  /** A node, or what its `$ref` points to (answers, headers and parameters many operations share). */
  const deref = (node: Json): Json => dereference(document, node);
  const operations = (): Array<{ name: string; path: string; method: string; operation: Json }> =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item as Json).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, path, method, operation })),
    );

  beforeAll(async () => {
    api = await TestApp.start();
    const served = await api.get<Json>('/docs-json');
    expect(served.status).toBe(200);
    document = served.body;
  });
  afterAll(() => api.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    const result = await new Validator().validate(document);
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it('offers optional-auth routes with or without the token, and says a bad token is 401', () => {
    for (const [method, path] of [
      ['post', '/achievements'],
      ['get', '/achievements/count'],
      ['get', '/personas/{personaUid}/skills'],
      ['post', '/personas/{personaUid}/archetypes/{archetypeUid}/skills/{skillUid}/progress'],
    ]) {
      expect({ path, security: operation(method, path).security }).toEqual({ path, security: [{ jwt: [] }, {}] });
      expect(operation(method, path).responses['401']).toBeDefined();
    }
    expect(operation('get', '/items').security).toEqual([{ jwt: [] }]);
  });

  it('documents If-Match as optional, with its form', () => {
    const ifMatch = operation('put', '/items/{id}')
      .parameters.map(deref)
      .find((parameter: Json) => parameter.in === 'header' && /if-match/i.test(parameter.name));
    expect(ifMatch).toMatchObject({ name: 'If-Match', required: false, schema: { pattern: expect.any(String) } });
    expect(new RegExp(ifMatch.schema.pattern).test('"3"')).toBe(true);
    expect(new RegExp(ifMatch.schema.pattern).test('three')).toBe(false);
  });

  it('types integers as integers, with the bounds the service enforces', () => {
    expect(schema('CreateSessionDto').properties.numTeams).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(schema('CreateTicketDto').properties.teamSize).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(schema('ItemQuantityDto').properties.quantity).toMatchObject({ type: 'integer', minimum: 1, maximum: 1_000_000_000 });
    expect(schema('Session').properties.numTeams.type).toBe('integer');
    expect(schema('Item').properties.version.type).toBe('integer');
    expect(schema('InventoryItem').properties.quantity.type).toBe('integer');
    const limit = operation('get', '/items')
      .parameters.map(deref)
      .find((parameter: Json) => parameter.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
  });

  it('closes request bodies to unknown fields, leaves the read-only ones out and says they are ignored', async () => {
    expect(schema('CreateItemDto').additionalProperties).toBe(false);
    expect(schema('StatDto').additionalProperties).toBe(false);
    // A generated client sends what the schema holds: no read-only field in any request body.
    const requests = new Set<string>();
    const visit = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return;
      const ref = (node as Json).$ref;
      if (typeof ref === 'string' && ref.startsWith('#/components/schemas/') && !requests.has(ref.split('/').pop()!)) {
        requests.add(ref.split('/').pop()!);
        visit(schema(ref.split('/').pop()!));
      }
      Object.values(node).forEach(visit);
    };
    for (const { operation } of operations()) visit(operation.requestBody);
    const readOnly = [...requests].flatMap((name) =>
      Object.entries(schema(name).properties ?? {})
        .filter(([, property]) => (property as Json).readOnly)
        .map(([property]) => `${name}.${property}`),
    );
    expect(readOnly).toEqual([]);
    expect(schema('CreateSessionDto').properties).not.toHaveProperty('hostUid');
    expect(schema('UpdateItemDto').properties).not.toHaveProperty('dateModified');
    expect(schema('UpdateItemDto').description).toMatch(/read back whole is taken too.*`dateModified`.*ignored, whatever their type/s);
    // Update bodies are all optional; a field that null clears says so.
    for (const name of [
      'UpdateItemDto',
      'UpdateSessionDto',
      'UpdateTicketDto',
      'UpdateMediaAssetDto',
      'UpdateTextAssetDto',
      'UpdateAchievementDto',
    ]) {
      expect({ name, required: schema(name).required ?? [] }).toEqual({ name, required: [] });
    }
    expect(schema('UpdateItemDto').properties.description.type).toEqual(['string', 'null']);
    expect(schema('UpdateItemDto').properties.name.type).toBe('string');
    // What the document says, the service does: an unknown field is refused; a read-only one, sent back
    // with a record read, is ignored whatever its type.
    const admin = await api.signIn('admin');
    expect((await api.post('/items', { name: 'Sword', colour: 'red' }, { token: admin })).status).toBe(400);
    const created = await api.post(
      '/items',
      { name: 'Sword', dateCreated: '2000-01-01T00:00:00.000Z', dateModified: {} },
      { token: admin },
    );
    expect(created.status).toBe(201);
    expect(created.body.dateCreated).not.toBe('2000-01-01T00:00:00.000Z');
    const updated = await api.put(`/items/${created.body.uid}`, { ...created.body, name: 'Axe', dateModified: [1] }, { token: admin });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'Axe', version: 1 });
    expect((await api.put(`/items/${created.body.uid}`, { uid: {} }, { token: admin })).status).toBe(400);
  });

  it('bounds every list, text and map a request may carry: in bodies, queries and paths', () => {
    // A pattern bounds its text when it is anchored and repeats nothing without a limit (outside a class).
    const bounding = (pattern: unknown) =>
      typeof pattern === 'string' &&
      pattern.startsWith('^') &&
      pattern.endsWith('$') &&
      !/[*+]|\{\d+,\}/.test(pattern.replace(/\\./g, '').replace(/\[[^\]]*\]/g, ''));
    const unbounded: string[] = [];
    const visit = (node: unknown, where: string, seen: ReadonlySet<string>): void => {
      if (node === null || typeof node !== 'object') return;
      const schema = node as Json;
      if (typeof schema.$ref === 'string') {
        if (!seen.has(schema.$ref)) visit(deref(schema), `${where}>${schema.$ref.split('/').pop()}`, new Set([...seen, schema.$ref]));
        return;
      }
      for (const keyword of ['oneOf', 'anyOf', 'allOf'])
        for (const part of (schema[keyword] as Json[] | undefined) ?? []) visit(part, where, seen);
      const types = [schema.type].flat();
      const bytes = typeof schema['x-max-bytes'] === 'number';
      if (types.includes('array')) {
        if (schema.maxItems === undefined) unbounded.push(`${where}: a list without maxItems`);
        visit(schema.items, `${where}[]`, seen);
      }
      const free = schema.enum === undefined && schema.const === undefined;
      if (types.includes('string') && free && schema.maxLength === undefined && !bytes && !bounding(schema.pattern)) {
        if (!['uuid', 'date-time', 'date'].includes(schema.format)) unbounded.push(`${where}: a text without maxLength`);
      }
      const map = schema.additionalProperties !== undefined && schema.additionalProperties !== false;
      if (map && schema.maxProperties === undefined && !bytes) unbounded.push(`${where}: a map without maxProperties or x-max-bytes`);
      if (map) visit(schema.additionalProperties, `${where}{}`, seen);
      for (const [name, property] of Object.entries((schema.properties as Json | undefined) ?? {}))
        visit(property, `${where}.${name}`, seen);
      // An open schema (a string, a number or a boolean, as generators read best) bounds its string form.
      const open = schema.type === undefined && free && ['oneOf', 'anyOf', 'allOf', 'properties'].every((key) => !(key in schema));
      if (open && schema.maxLength === undefined && !bytes) unbounded.push(`${where}: an open value without maxLength`);
    };
    for (const { name, operation } of operations()) {
      for (const [type, content] of Object.entries((deref(operation.requestBody ?? {}).content as Json | undefined) ?? {})) {
        visit((content as Json).schema, `${name} body (${type})`, new Set());
      }
      for (const parameter of ((operation.parameters as Json[] | undefined) ?? []).map(deref)) {
        if (parameter.in === 'query' || parameter.in === 'path')
          visit(parameter.schema, `${name} ${parameter.in} ${parameter.name}`, new Set());
      }
    }
    expect(unbounded).toEqual([]);
    // The lists the session and ticket bodies carry, as src/common/limits.ts has them.
    expect(schema('CreateSessionDto').properties.users.maxItems).toBe(100);
    expect(schema('TeamDto').properties.members.maxItems).toBe(100);
    expect(schema('CreateTicketDto').properties.criteria.maxItems).toBe(32);
    expect(schema('SubmitScoreDto').properties.metadata).toMatchObject({ 'x-max-bytes': 2048, maxProperties: 409 });
  });

  it('states the maps that must hold `default`, with their keys and sizes', () => {
    expect(schema('CreateMediaAssetDto').properties.files).toMatchObject({
      required: ['default'],
      maxProperties: 32,
      propertyNames: { pattern: expect.any(String) },
    });
    expect(schema('CreateTextAssetDto').properties.text).toMatchObject({
      required: ['default'],
      maxProperties: 200,
      propertyNames: { pattern: expect.any(String) },
    });
    const keys = new RegExp(schema('CreateTextAssetDto').properties.text.propertyNames.pattern);
    expect(['default', 'en', 'pt-BR', 'zh-Hant'].filter((key) => !keys.test(key))).toEqual([]);
    expect(keys.test('not a tag')).toBe(false);
  });

  it('states the formats the service enforces: lang, Idempotency-Key, uuids in paths', () => {
    const lang = operation('get', '/assets/text/{id}/resolve').parameters.find((parameter: Json) => parameter.name === 'lang');
    expect(new RegExp(lang.schema.pattern).test('pt-BR')).toBe(true);
    expect(new RegExp(lang.schema.pattern).test('x!')).toBe(false);
    const key = operation('post', '/inventories/transaction').parameters.find((parameter: Json) => parameter.name === 'Idempotency-Key');
    expect(new RegExp(key.schema.pattern).test('retry-1')).toBe(true);
    expect(new RegExp(key.schema.pattern).test('with space')).toBe(false);
    const id = operation('get', '/items/{id}').parameters.find((parameter: Json) => parameter.in === 'path');
    expect(id.schema).toMatchObject({ type: 'string', format: 'uuid' });
  });

  it('lists the errors any operation may meet, and the headers of every answer', () => {
    const create = operation('post', '/items').responses;
    expect(Object.keys(create)).toEqual(expect.arrayContaining(['400', '401', '403', '413', '415', '429', '431', '503']));
    expect(deref(deref(create['503']).headers['Retry-After'])).toMatchObject({ required: true });
    const headers = Object.fromEntries(Object.entries(create['201'].headers as Json).map(([name, header]) => [name, deref(header)]));
    expect(headers).toMatchObject({ ETag: { required: true }, Location: { required: true }, 'X-Request-Id': { required: true } });
    expect(deref(operation('get', '/items/{id}').responses['200'].headers.ETag)).toMatchObject({ required: true });
    // Node's header limit answers 431 before the service sees the request: every operation lists it.
    expect(
      operations()
        .filter(({ operation }) => !operation.responses['431'])
        .map(({ name }) => name),
    ).toEqual([]);
    expect(operation('get', '/assets/text/{id}/resolve').responses['200'].headers).toMatchObject({ 'Content-Language': {}, Vary: {} });
  });

  it('gives every filterable field a query parameter of its own, and sort the sortable names', () => {
    const parameters = operation('get', '/items').parameters as Json[];
    const cost = parameters.find((parameter) => parameter.name === 'cost')!;
    expect(parameters.some((parameter) => parameter.name === 'filters')).toBe(false);
    const filter = new RegExp(cost.schema.pattern);
    expect(['150', 'lt(200)', 'range(1,5)', 'in(1, 2.5)'].filter((value) => !filter.test(value))).toEqual([]);
    expect(['cheap', 'lt(x)', 'like(a)'].filter((value) => filter.test(value))).toEqual([]);
    const sort = new RegExp(parameters.find((parameter) => parameter.name === 'sort')!.schema.pattern);
    expect(['cost', '{"cost":"DESC","name":"asc"}', '{}'].filter((value) => !sort.test(value))).toEqual([]);
    expect(sort.test('colour')).toBe(false);
    expect(parameters.some((parameter) => parameter.name === 'sort[cost]')).toBe(true);
  });

  it('documents a transaction body as a base told apart by a required type, and each shape as an allOf of it', async () => {
    const body = schema('CreateTransactionDto');
    expect(operation('post', '/inventories/transaction').requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreateTransactionDto',
    });
    expect(body.discriminator).toEqual({
      propertyName: 'type',
      mapping: {
        TRADE: '#/components/schemas/TradeTransactionDto',
        AWARD: '#/components/schemas/AwardTransactionDto',
        REMOVAL: '#/components/schemas/RemovalTransactionDto',
      },
    });
    expect(body.required).toEqual(['type', 'personaOneUid']);
    expect(body.oneOf).toBeUndefined();
    for (const [shape, required] of [
      ['TradeTransactionDto', ['personaTwoUid']],
      ['AwardTransactionDto', ['personaOneInventoryItems']],
      ['RemovalTransactionDto', ['personaOneInventoryItems']],
    ] as const) {
      expect(schema(shape).allOf[0]).toEqual({ $ref: '#/components/schemas/CreateTransactionDto' });
      expect(schema(shape).allOf[1].required).toEqual(required);
      expect(schema(shape).unevaluatedProperties).toBe(false);
    }
    // The inbox's events are the same kind of base, RealtimeEvent.
    expect(schema('RealtimeEvent').discriminator.mapping['ticket.updated']).toBe('#/components/schemas/TicketUpdatedEvent');
    expect(operation('get', '/notifications').responses['200'].content['application/json'].schema.items).toEqual({
      $ref: '#/components/schemas/RealtimeEvent',
    });
    // The document requires `type`; the service still takes a body without it as a TRADE (a gift here).
    const admin = await api.signInWithPersona('admin');
    const player = await api.signInWithPersona('untyped-trade');
    const coin = (await api.post('/items', { name: 'Coin' }, { token: admin.token })).body.uid;
    const items = [{ itemUid: coin, quantity: 1 }];
    const award = { type: 'AWARD', personaOneUid: admin.personaUid, personaOneInventoryItems: items };
    expect((await api.post('/inventories/transaction', award, { token: admin.token })).status).toBe(200);
    const gift = { personaOneUid: admin.personaUid, personaTwoUid: player.personaUid, personaOneInventoryItems: items };
    const untyped = await api.post('/inventories/transaction', gift, { token: admin.token });
    expect(untyped.status).toBe(200);
    expect(untyped.body).toMatchObject({ type: 'TRADE', status: 'COMPLETED' });
  });

  it('has no oneOf of primitive values, which generators read as one of them', () => {
    const problems: string[] = [];
    const visit = (node: unknown, path: string): void => {
      if (node === null || typeof node !== 'object') return;
      const oneOf = (node as Json).oneOf;
      // `oneOf: [{ $ref }, { type: 'null' }]` is how a nullable reference is said, which NSwag reads right.
      if (Array.isArray(oneOf) && oneOf.some((option: Json) => typeof option.type === 'string' && option.type !== 'null'))
        problems.push(path);
      for (const [key, value] of Object.entries(node)) visit(value, `${path}/${key}`);
    };
    visit(document, '#');
    expect(problems).toEqual([]);
    expect(schema('StatDto').properties.value).toEqual({
      description: 'A string, a number or a boolean (a string of at most 1000 characters).',
      maxLength: 1000,
      example: 12,
    });
  });

  it('says who may call each operation: our bearer token, a provider token to sign in, or none', () => {
    expect(document.components.securitySchemes).toMatchObject({
      jwt: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      idp1: { type: 'http', scheme: 'bearer' },
      idp2: { type: 'http', scheme: 'bearer' },
    });
    expect(document.security).toEqual([{ jwt: [] }]);
    expect(operation('get', '/auth/idp1').security).toEqual([{ idp1: [] }]);
    expect(operation('get', '/auth/idp2').security).toEqual([{ idp2: [] }]);
    for (const [method, path] of [
      ['get', '/health'],
      ['get', '/health/ready'],
      ['get', '/metrics'],
      ['post', '/auth/refresh'],
    ]) {
      expect({ path, security: operation(method, path).security }).toEqual({ path, security: [] });
    }
    // OpenAPI ignores a header parameter named Authorization: no operation declares one.
    const authorization = operations().filter(({ operation }) =>
      (operation.parameters ?? []).map(deref).some((parameter: Json) => /^authorization$/i.test(parameter.name)),
    );
    expect(authorization.map(({ name }) => name)).toEqual([]);
    expect(operations().filter(({ operation }) => operation.security === undefined)).toEqual([]);
  });

  it('names its servers, license and tags, and describes every operation', () => {
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(document.info.license).toMatchObject({ name: 'MIT' });
    const tags = new Map((document.tags as Json[]).map((tag) => [tag.name, tag.description]));
    for (const [name, description] of tags) expect({ name, description }).toEqual({ name, description: expect.stringMatching(/\w/) });
    const problems = operations().flatMap(({ name, operation }) => [
      ...(operation.tags ?? []).filter((tag: string) => !tags.has(tag)).map((tag: string) => `${name}: tag ${tag} is not declared`),
      ...(operation.description?.trim() ? [] : [`${name}: no description`]),
      ...(operation.tags?.length ? [] : [`${name}: no tag`]),
    ]);
    expect(problems).toEqual([]);
  });

  it('gives every uid that is a UUID format: uuid', () => {
    const problems: string[] = [];
    for (const [name, { properties = {} }] of Object.entries(document.components.schemas as Record<string, Json>)) {
      for (const [property, value] of Object.entries(properties as Record<string, Json>)) {
        // Skill and archetype ids are the game's own strings, not UUIDs.
        if (!/(?:^uid|Uid|UID|Uids)$/.test(property) || ['archetypeUid', 'skillUid'].includes(property)) continue;
        const target = value.type === 'array' ? value.items : value;
        if (target.format !== 'uuid') problems.push(`${name}.${property}`);
      }
    }
    expect(problems).toEqual([]);
    expect(schema('Item').properties.uid.format).toBe('uuid');
    expect(schema('Session').properties.users.items.format).toBe('uuid');
  });

  it('shares the parameters and errors many operations have in components', () => {
    const parameters = operation('put', '/items/{id}').parameters.map(deref);
    expect(parameters.find((parameter: Json) => parameter.name === 'If-Match')).toBeDefined();
    expect(operation('put', '/items/{id}').parameters).toEqual(expect.arrayContaining([{ $ref: '#/components/parameters/IfMatch' }]));
    expect(operation('get', '/items').parameters).toEqual(expect.arrayContaining([{ $ref: '#/components/parameters/Limit' }]));
    for (const status of ['401', '413', '415', '429', '431', '503']) {
      expect({ status, ref: operation('post', '/items').responses[status].$ref }).toEqual({
        status,
        ref: expect.stringMatching(/^#\/components\/responses\//),
      });
    }
    expect(document.components.responses.RateLimited.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorBody',
    });
  });

  it('types sort directions and states the length of a filter value', () => {
    const parameters = operation('get', '/items').parameters.map(deref) as Json[];
    const named = (name: string): Json => parameters.find((parameter) => parameter.name === name)!;
    expect(named('sort[cost]').schema).toEqual({ $ref: '#/components/schemas/SortDirection' });
    expect(schema('SortDirection').enum).toEqual(['ASC', 'DESC']);
    expect(named('name').schema).toMatchObject({ type: 'string', maxLength: 1000 });
    expect(named('name').description).toContain('at most 1000 characters');
  });

  // The linters run on the committed file, which test/sdk.e2e-spec.ts keeps equal to the served document.
  it("passes Redocly's recommended rules and Spectral's oas rules with no error (redocly.yaml, .spectral.yaml)", async () => {
    const run = promisify(execFile);
    // Both exit non-zero when they find errors; the JSON report says which.
    const redocly = await run('node_modules/.bin/redocly', ['lint', OPENAPI_FILE, '--format=json'], { maxBuffer: 64 * 1024 * 1024 }).catch(
      (error: { stdout: string }) => ({ stdout: error.stdout }),
    );
    const redoclyProblems = (JSON.parse(redocly.stdout) as { problems: Array<{ ruleId: string; severity: string; message: string }> })
      .problems;
    expect(
      redoclyProblems.filter((problem) => problem.severity === 'error').map((problem) => `${problem.ruleId}: ${problem.message}`),
    ).toEqual([]);
    const spectral = await run('node_modules/.bin/spectral', ['lint', OPENAPI_FILE, '--format=json', '--quiet'], {
      maxBuffer: 64 * 1024 * 1024,
    }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
    // Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
    const spectralProblems = JSON.parse(spectral.stdout || '[]') as Array<{
      code: string;
      severity: number;
      message: string;
      path: string[];
    }>;
    expect(
      spectralProblems.filter((problem) => problem.severity === 0).map((problem) => `${problem.code} ${problem.path.join('.')}`),
    ).toEqual([]);
  }, 120_000);

  it('links a create to the reads and writes of what it created, and says where it is', async () => {
    expect(Object.values(operation('post', '/items').responses['201'].links)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ operationId: operation('get', '/items/{id}').operationId, parameters: { id: '$response.body#/uid' } }),
      ]),
    );
    const admin = await api.signIn('admin');
    const created = await api.post('/items', { name: 'Shield' }, { token: admin });
    expect(created.headers.location).toBe(`/items/${created.body.uid}`);
    expect((await api.get(String(created.headers.location), { token: admin })).status).toBe(200);
  });
});

describe('the service where the document found it wrong', () => {
  let api: TestApp;
  let admin: string;
  beforeAll(async () => {
    api = await TestApp.start({}, { listen: true });
    admin = await api.signIn('admin');
  });
  afterAll(() => api.close());

  it('refuses "version": null on a create, as the integer it is', async () => {
    const response = await api.post('/items', { name: 'Sword', version: null }, { token: admin });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'version' })]));
  });

  it('sends every example of the document as a request the service takes (no 400), each valid against its schema', async () => {
    const document = (await api.get<Json>('/docs-json')).body;
    const deref = (node: Json): Json => dereference(document, node);
    const contract = schemaValidator();
    contract.addSchema(document, 'doc');
    const { personaUid } = await api.signInWithPersona('admin');
    // A record of each collection, made from its own create example, for the paths' ids.
    const made = new Map<string, string>();
    let players = 0;
    const examplesOf = (operation: Json): Array<{ name: string; body: unknown }> => {
      const content = operation.requestBody?.content?.['application/json'];
      if (!content) return [{ name: 'no body', body: undefined }];
      if (content.examples)
        return Object.entries(content.examples as Json).map(([name, example]) => ({ name, body: (example as Json).value }));
      return [{ name: 'example', body: content.example ?? deref(content.schema).example ?? exampleOf(deref(content.schema)) }];
    };
    // What Swagger UI composes from the fields' examples when the schema has none of its own.
    const exampleOf = (schema: Json): unknown =>
      Object.fromEntries(
        Object.entries((schema.properties ?? {}) as Record<string, Json>)
          .map(([field, property]) => [field, property.example ?? deref(property).example])
          .filter(([, value]) => value !== undefined),
      );
    const recordOf = async (collection: string): Promise<string> => {
      // Users are made by signing in; the example bans a player, not the admin who sends the rest.
      if (collection === '/users') return (await api.signInPlayer(`example-user-${++players}`)).uid;
      if (!made.has(collection)) {
        const create = document.paths[collection]?.post;
        // A player queues one ticket at a time: each ticket is another player's (the admin may update it).
        const creator = collection === '/tickets' ? (await api.signInPlayer(`example-host-${++players}`)).token : admin;
        const created = await api.post(collection, examplesOf(create)[0].body, { token: creator });
        expect({ collection, status: created.status, body: created.status === 201 ? undefined : created.body }).toEqual({
          collection,
          status: 201,
        });
        made.set(collection, created.body.uid);
      }
      return made.get(collection)!;
    };
    // The ids an example names (players, personas, items) are the reader's own records: each one the
    // example names becomes a record of that kind made here, the same one wherever the example repeats it.
    const real = new Map<string, string>();
    const KINDS: Record<string, 'user' | 'persona' | 'item'> = {
      users: 'user',
      invited: 'user',
      members: 'user',
      personaOneUid: 'persona',
      personaTwoUid: 'persona',
      itemUid: 'item',
      parentUID: 'item',
    };
    const realId = async (kind: 'user' | 'persona' | 'item', example: string): Promise<string> => {
      if (!real.has(example)) {
        if (kind === 'item') real.set(example, (await api.post('/items', { name: `Example ${real.size}` }, { token: admin })).body.uid);
        else {
          const player = await api.signInWithPersona(`example-${kind}-${++players}`);
          real.set(example, kind === 'user' ? player.uid : player.personaUid);
        }
      }
      return real.get(example)!;
    };
    const withRealIds = async (value: unknown, kind?: 'user' | 'persona' | 'item'): Promise<unknown> => {
      if (typeof value === 'string' && kind && /^[0-9a-f-]{36}$/.test(value)) return realId(kind, value);
      if (Array.isArray(value)) return Promise.all(value.map((entry) => withRealIds(entry, kind)));
      if (value === null || typeof value !== 'object') return value;
      const entries = await Promise.all(Object.entries(value).map(async ([key, entry]) => [key, await withRealIds(entry, KINDS[key])]));
      return Object.fromEntries(entries);
    };
    // A path parameter's example, or the first value of its enum (IdentityProvider: device).
    const pathExampleOf = (schema: Json): string => String(schema.example ?? schema.enum?.[0] ?? 'warrior');
    const seen: string[] = [];
    const problems: string[] = [];
    for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
      for (const [method, operation] of Object.entries(item)) {
        const parameters = (operation.parameters ?? []).map(deref) as Json[];
        const headers = Object.fromEntries(
          parameters
            .filter((parameter) => parameter.in === 'header' && parameter.schema?.example)
            .map((parameter) => [parameter.name, parameter.schema.example]),
        );
        if (!operation.requestBody && Object.keys(headers).length === 0) continue;
        for (const { name, body } of examplesOf(operation)) {
          if (body !== undefined && operation.requestBody) {
            const validate = contract.compile({
              $ref: `doc#/paths/${path.replace(/~/g, '~0').replace(/\//g, '~1')}/${method}/requestBody/content/application~1json/schema`,
            });
            if (!validate(body))
              problems.push(`${method.toUpperCase()} ${path} (${name}) is not valid: ${JSON.stringify(validate.errors).slice(0, 300)}`);
          }
          let url = path.replace('{personaUid}', personaUid);
          for (const parameter of parameters.filter((candidate) => candidate.in === 'path' && candidate.name !== 'personaUid')) {
            const collection = path.slice(0, path.indexOf(`/{${parameter.name}}`));
            // A record of its own for each update, so that If-Match "0" names its version.
            if (method === 'put') made.delete(collection);
            url = url.replace(
              `{${parameter.name}}`,
              parameter.schema.format === 'uuid'
                ? // A record below another (a direct upload of a variant) has no create example of its own: any uid (404).
                  collection.includes('{')
                  ? '3f0c2a9e-6b1d-4c7e-8a5f-2d9b0e4c6a18'
                  : await recordOf(collection)
                : pathExampleOf(deref(parameter.schema)),
            );
          }
          const response = await api.request(method.toUpperCase(), url, { token: admin, body: await withRealIds(body), headers });
          seen.push(`${method.toUpperCase()} ${path} ${name}: ${response.status}`);
          // Ids the examples name may not exist here (404), nor the holdings a trade needs (409): the
          // request itself must be one the service understands.
          const request = `${method.toUpperCase()} ${path} (${name})`;
          const refused = response.status === 400 || response.status >= 500;
          if (refused) problems.push(`${request}: ${response.status} ${JSON.stringify(response.body).slice(0, 300)}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect(seen.length).toBeGreaterThan(15);
  });

  it('answers QUERY, and every other method a path does not serve, with 405 and Allow', async () => {
    // Raw requests: QUERY as Schemathesis sends it, without a body or a Content-Type.
    const send = (method: string, path: string) =>
      new Promise<{ status: number; allow?: string; body: string }>((resolve, reject) => {
        const request = httpRequest(`${api.baseUrl}${path}`, { method }, (response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode!, allow: response.headers.allow, body }));
        });
        request.on('error', reject);
        request.end();
      });
    for (const method of ['QUERY', 'PROPFIND', 'SEARCH', 'LOCK', 'PURGE', 'PATCH', 'TRACE']) {
      const answer = await send(method, '/items');
      expect({ method, status: answer.status, allow: answer.allow }).toEqual({ method, status: 405, allow: 'GET, HEAD, POST' });
      expect(JSON.parse(answer.body)).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' });
    }
    expect((await send('QUERY', '/nothing-here')).status).toBe(404);
  });

  it('answers a wrong method on an existing path with 405 and Allow', async () => {
    const created = await api.post('/items', { name: 'Sword' }, { token: admin });
    const patch = await api.request('PATCH', `/items/${created.body.uid}`, { token: admin, body: { name: 'Axe' } });
    expect(patch.status).toBe(405);
    expect(patch.body).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' });
    expect(String(patch.headers.allow).split(', ')).toEqual(expect.arrayContaining(['GET', 'PUT', 'DELETE']));
    const trace = await api.request('TRACE', '/items', { token: admin });
    expect(trace.status).toBe(405);
    expect(String(trace.headers.allow).split(', ')).toEqual(expect.arrayContaining(['GET', 'POST']));
    // A path that exists under no method is still 404.
    expect((await api.request('PATCH', '/nothing-here', { token: admin })).status).toBe(404);
  });

  it('says why a valid JSON body with a __proto__ key is refused', async () => {
    const response = await api.post('/items', '{"name":"Sword","__proto__":{"isAdmin":true}}', { token: admin });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('__proto__') });
    const broken = await api.post('/items', '{"name":', { token: admin });
    expect(broken.body.code).toBe('MALFORMED_JSON');
  });
});
