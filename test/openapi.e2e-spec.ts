import { Validator } from '@seriousme/openapi-schema-validator';
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
    const ifMatch = operation('put', '/items/{id}').parameters.find(
      (parameter: Json) => parameter.in === 'header' && /if-match/i.test(parameter.name),
    );
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
    const limit = operation('get', '/items').parameters.find((parameter: Json) => parameter.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 1000 });
  });

  it('closes request bodies to unknown fields and declares the read-only ones they accept', async () => {
    expect(schema('CreateItemDto').additionalProperties).toBe(false);
    expect(schema('StatDto').additionalProperties).toBe(false);
    expect(schema('CreateItemDto').properties.dateCreated).toMatchObject({ readOnly: true });
    expect(schema('CreateSessionDto').properties.hostUid).toMatchObject({ readOnly: true });
    // What the document says, the service does: an unknown field is refused, a read-only one ignored.
    const admin = await api.signIn('admin');
    expect((await api.post('/items', { name: 'Sword', colour: 'red' }, { token: admin })).status).toBe(400);
    const created = await api.post('/items', { name: 'Sword', dateCreated: '2000-01-01T00:00:00.000Z' }, { token: admin });
    expect(created.status).toBe(201);
    expect(created.body.dateCreated).not.toBe('2000-01-01T00:00:00.000Z');
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
    expect(Object.keys(create)).toEqual(expect.arrayContaining(['400', '401', '403', '413', '415', '429', '503']));
    expect(create['503'].headers['Retry-After']).toBeDefined();
    expect(create['201'].headers).toMatchObject({
      ETag: { required: true },
      Location: { required: true },
      'X-Request-Id': { required: true },
    });
    expect(operation('get', '/items/{id}').responses['200'].headers.ETag).toMatchObject({ required: true });
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

  it('documents a transaction body as one of three shapes told apart by type', () => {
    const body = schema('CreateTransactionDto');
    expect(body.discriminator).toMatchObject({ propertyName: 'type', mapping: { TRADE: expect.any(String), AWARD: expect.any(String) } });
    expect(body.oneOf).toHaveLength(3);
    expect(schema('AwardTransactionDto').required).toEqual(expect.arrayContaining(['type', 'personaOneUid', 'personaOneInventoryItems']));
    expect(schema('TradeTransactionDto').required).toEqual(expect.arrayContaining(['personaOneUid', 'personaTwoUid']));
  });

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
    api = await TestApp.start();
    admin = await api.signIn('admin');
  });
  afterAll(() => api.close());

  it('refuses "version": null on a create, as the integer it is', async () => {
    const response = await api.post('/items', { name: 'Sword', version: null }, { token: admin });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'version' })]));
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
