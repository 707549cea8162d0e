import { expectErrorBody } from './support/expectations.js';
import { TestApp } from './support/test-app.js';

/** The request machinery every route shares: error bodies, request ids, body rules, operations routes. */
describe('HTTP machinery', () => {
  let api: TestApp;
  let admin: string;
  let itemUid: string;

  beforeAll(async () => {
    api = await TestApp.start();
    admin = await api.signIn('admin');
    itemUid = (await api.post('/items', { name: 'Shield' }, { token: admin })).body.uid;
  });
  afterAll(() => api.close());

  describe('request ids', () => {
    it('gives every response an X-Request-Id, also quoted in error bodies', async () => {
      const ok = await api.get('/health');
      expect(ok.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      const failed = await api.get('/items');
      expectErrorBody(failed, 401, 'UNAUTHORIZED');
      expect(failed.headers['x-request-id']).not.toBe(ok.headers['x-request-id']);
    });

    it("keeps a gateway's request id, and replaces one that could poison the logs", async () => {
      const kept = await api.get('/health', { headers: { 'x-request-id': 'edge-42.abc' } });
      expect(kept.headers['x-request-id']).toBe('edge-42.abc');
      const replaced = await api.get('/health', { headers: { 'x-request-id': 'bad id\twith "quotes"' } });
      expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('bodies', () => {
    it('refuses a body over 1 MiB with 413 and the JSON error body', async () => {
      const response = await api.post('/items', { name: 'x'.repeat(1024 * 1024 + 10) }, { token: admin });
      expectErrorBody(response, 413, 'PAYLOAD_TOO_LARGE');
    });

    it('refuses a body that is not JSON with 415', async () => {
      const response = await api.post('/items', 'name=Sword', {
        token: admin,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectErrorBody(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const text = await api.post('/items', 'Sword', { token: admin, headers: { 'content-type': 'text/plain' } });
      expectErrorBody(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('answers malformed JSON with 400 MALFORMED_JSON', async () => {
      const response = await api.post('/items', '{"name": "Sword",', { token: admin });
      expectErrorBody(response, 400, 'MALFORMED_JSON');
    });

    it.each([['[]'], ['"Sword"'], ['null'], ['42']])('refuses the JSON body %s, which is not an object', async (raw) => {
      const response = await api.post('/items', raw, { token: admin });
      expectErrorBody(response, 400, 'VALIDATION_FAILED');
    });

    it('refuses prototype pollution in a body', async () => {
      const response = await api.post('/items', '{"name":"Sword","__proto__":{"isAdmin":true}}', { token: admin });
      expect(response.status).toBe(400);
      expect(response.body.code).toMatch(/MALFORMED_JSON|VALIDATION_FAILED/);
    });

    it('accepts DELETE with Content-Type: application/json and an empty body', async () => {
      const response = await api.request('DELETE', `/items/${itemUid}`, {
        token: admin,
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(200);
      expect(response.body).toBe('');
      expect((await api.get(`/items/${itemUid}`, { token: admin })).status).toBe(404);
    });
  });

  describe('paths', () => {
    it('answers a malformed uuid in a path with 400, an unknown one with 404', async () => {
      expectErrorBody(await api.get('/items/not-a-uuid', { token: admin }), 400, 'VALIDATION_FAILED');
      expectErrorBody(await api.get('/items/00000000-0000-4000-8000-000000000000', { token: admin }), 404, 'NOT_FOUND');
    });

    it('answers an unknown route with the JSON 404 body', async () => {
      expectErrorBody(await api.get('/no-such-route', { token: admin }), 404, 'NOT_FOUND');
    });
  });

  describe('operations', () => {
    it('serves liveness and readiness without a token', async () => {
      expect(await api.get('/health')).toMatchObject({ status: 200, body: { status: 'ok' } });
      expect(await api.get('/health/ready')).toMatchObject({ status: 200, body: { status: 'ok' } });
    });

    it('counts requests by route pattern and status in Prometheus format', async () => {
      await api.get(`/items/${itemUid}`, { token: admin });
      const response = await api.get('/metrics');
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/plain/);
      expect(response.body).toMatch(/http_requests_total\{method="GET",route="\/items\/:id",status="404"\} \d+/);
      expect(response.body).toMatch(/http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/items\/:id"/);
      expect(response.body).not.toContain(itemUid); // raw URLs would explode the label set
    });
  });

  describe('OpenAPI document', () => {
    let document: any;
    beforeAll(async () => {
      const response = await api.get('/docs-json');
      expect(response.status).toBe(200);
      document = response.body;
    });

    it('serves the Swagger UI at /docs', async () => {
      const response = await api.get('/docs');
      expect(response.status).toBe(200);
      expect(response.body).toContain('swagger-ui');
    });

    it('offers the bearer scheme used by the Authorize button, and the service takes it and "jwt <token>" alike', async () => {
      expect(document.components.securitySchemes.jwt).toEqual(
        expect.objectContaining({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
      );
      expect(document.paths['/items'].get.security).toEqual([{ jwt: [] }]);
      const { token } = await api.openSession('bearer-or-jwt');
      for (const scheme of ['Bearer', 'jwt', 'bearer', 'JWT']) {
        expect((await api.get('/personas', { headers: { authorization: `${scheme} ${token}` } })).status).toBe(200);
      }
    });

    it('describes every route with a summary, and errors with the ErrorBody schema', () => {
      const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
        Object.entries(methods as Record<string, any>).map(([method, operation]) => ({ path, method, operation })),
      );
      expect(operations.map(({ method, path }) => `${method.toUpperCase()} ${path}`)).toEqual(
        expect.arrayContaining([
          'GET /auth/idp1',
          'GET /auth/idp2',
          'GET /personas',
          'POST /personas',
          'GET /personas/{id}',
          'GET /items',
          'POST /items',
          'GET /items/count',
          'GET /items/{id}',
          'PUT /items/{id}',
          'DELETE /items/{id}',
          'GET /sessions',
          'POST /sessions',
          'DELETE /sessions',
          'GET /sessions/count',
          'GET /sessions/{id}',
          'PUT /sessions/{id}',
          'DELETE /sessions/{id}',
          'GET /sessions/{id}/join',
          'GET /sessions/{id}/leave',
          'GET /tickets',
          'POST /tickets',
          'DELETE /tickets',
          'GET /tickets/count',
          'GET /tickets/{id}',
          'PUT /tickets/{id}',
          'DELETE /tickets/{id}',
          'GET /health',
          'GET /health/ready',
          'GET /metrics',
        ]),
      );
      for (const { operation } of operations) expect(operation.summary).toEqual(expect.any(String));
      const createItem = document.paths['/items'].post;
      expect(createItem.responses['403'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorBody');
      expect(createItem.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/CreateItemDto');
      expect(document.components.schemas.CreateItemDto.required).toEqual(['name']);
      expect(document.components.schemas.Item.properties).not.toHaveProperty('ownerUid');
    });

    it('shows the enums of sessions and tickets, and never a session password in a response', () => {
      const { schemas } = document.components;
      expect(schemas.SessionStatus.enum).toEqual(['WAITING_FOR_PLAYERS', 'IDLE', 'IN_PROGRESS', 'ENDED']);
      expect(schemas.SessionVisibility.enum).toEqual(['PUBLIC', 'INVITE_ONLY', 'LOCKED']);
      expect(schemas.TicketStatus.enum).toEqual(['INITIALIZING', 'SEARCHING', 'MATCH_FOUND', 'INVALID']);
      expect(schemas.Session.properties).not.toHaveProperty('password');
      expect(schemas.Session.properties).not.toHaveProperty('passwordHash');
      expect(schemas.CreateSessionDto.properties.password.writeOnly).toBe(true);
      const join = document.paths['/sessions/{id}/join'].get;
      expect(Object.keys(join.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '429', '431', '503']);
    });
  });
});
