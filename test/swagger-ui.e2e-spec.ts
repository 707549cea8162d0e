import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './support/chromium.js';
import { dereference } from './support/openapi-refs.js';
import { TestApp } from './support/test-app.js';
import type { ItemBody } from './support/api-types.js';

/**
 * The Swagger UI as a frontend developer uses it, in a real browser: Debian's Chromium driven by
 * playwright-core (no browser download at run time; .ci/run installs the chromium package).
 */
const ARTIFACTS = join(process.cwd(), 'test-artifacts');
const SCREENSHOT = join(ARTIFACTS, 'swagger-ui-get-items.png');

describe('Swagger UI in Chromium', () => {
  let api: TestApp;
  let baseUrl: string;
  let browser: Browser;
  let page: Page;
  let token: string;
  const itemNames = ['Emberforged longsword', 'Tidecaller amulet'];

  beforeAll(async () => {
    api = await TestApp.start();
    await api.app.listen(0, '127.0.0.1');
    const { port } = api.app.getHttpServer().address() as AddressInfo;
    baseUrl = `http://127.0.0.1:${port}`;

    // The token a developer gets from the development identity provider (`npm run dev-token`),
    // exchanged at /auth/idp1 like any provider token.
    token = await api.signIn('admin');
    for (const [index, name] of itemNames.entries()) {
      const created = await api.post('/items', { name, cost: 100 + index, stats: [{ name: 'rarity', value: 'epic' }] }, { token });
      expect(created.status).toBe(201);
    }

    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
    await mkdir(ARTIFACTS, { recursive: true });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await api?.close();
  });

  it('authorizes with the token and runs GET /items with Try it out, seeing a 200 with the items', async () => {
    await page.goto(`${baseUrl}/docs`);
    await page.locator('.swagger-ui .information-container .title').waitFor();
    expect(await page.locator('.swagger-ui .information-container .title').innerText()).toContain('Game backend');

    // Authorize: the dialog's first scheme is ours (`jwt`, http bearer), filled with the token alone;
    // the providers' schemes below it are for the sign-in routes.
    await page.locator('.scheme-container button.authorize').click();
    const dialog = page.locator('.dialog-ux .modal-ux');
    await dialog.waitFor();
    const ours = dialog.locator('.auth-container').first();
    expect(await ours.locator('h4').innerText()).toContain('jwt');
    await ours.locator('input').fill(token);
    await ours.locator('button.authorize').click();
    // Once authorized, the dialog masks the value and offers Logout.
    await ours.getByRole('button', { name: 'Remove authorization' }).waitFor();
    expect(await ours.locator('h6').innerText()).toBe('Authorized');
    await dialog.locator('button.btn-done').first().click();
    await dialog.waitFor({ state: 'detached' });

    // GET /items → Try it out → Execute.
    const operation = page.locator('#operations-items-itemsFindAll');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('button.execute').click();

    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 20_000 });
    const body = await operation.locator('.live-responses-table .response-col_description pre.microlight').first().innerText();
    // The operation as the developer sees it: parameters, the curl command, the 200 and its body.
    await operation.screenshot({ path: SCREENSHOT });

    expect((await status.innerText()).trim()).toBe('200');
    const items = JSON.parse(body) as ItemBody[];
    expect(items.map((item) => item.name)).toEqual(itemNames);
    expect(items[0]).toMatchObject({ cost: 100, version: 0, stats: [{ name: 'rarity', value: 'epic' }] });
    // The request the UI sent carried the header the Authorize dialog set.
    expect(await operation.locator('.curl-command').innerText()).toContain(`Authorization: Bearer ${token}`);
    expect(existsSync(SCREENSHOT)).toBe(true);
  }, 120_000);

  describe('the document behind the UI', () => {
    let document: OpenApiDocument;
    let operations: Operation[];
    beforeAll(async () => {
      const response = await api.get<OpenApiDocument>('/docs-json');
      expect(response.status).toBe(200);
      document = response.body;
      // Answers and parameters many operations share are $refs to components: read them in place.
      const deref = <T extends object>(node: T): T => dereference(document, node);
      operations = Object.entries(document.paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, operation]) => ({
          name: `${method.toUpperCase()} ${path}`,
          path,
          ...operation,
          parameters: operation.parameters?.map(deref),
          responses: Object.fromEntries(Object.entries(operation.responses).map(([status, response]) => [status, deref(response)])),
        })),
      );
      expect(operations.length).toBeGreaterThan(60);
    });

    it('gives every route a summary and a success response', () => {
      const missing = operations.filter(
        (operation) => !operation.summary?.trim() || !Object.keys(operation.responses).some((status) => /^2\d\d$/.test(status)),
      );
      expect(missing.map((operation) => operation.name)).toEqual([]);
    });

    it('gives every request body a schema whose fields all carry examples', () => {
      const problems: string[] = [];
      for (const operation of operations.filter((candidate) => candidate.requestBody)) {
        const { content } = operation.requestBody!;
        // A file's bytes (an upload) have no fields to give examples of.
        if (!content['application/json'] && Object.values(content).every((media) => media.schema?.format === 'binary')) continue;
        const schema = content['application/json']?.schema;
        if (!schema?.$ref) {
          problems.push(`${operation.name}: no JSON body schema`);
          continue;
        }
        for (const field of fieldsWithoutExample(document, schema)) problems.push(`${operation.name}: ${field}`);
      }
      expect(problems).toEqual([]);
      // Spot check: what the "Example Value" of POST /items shows.
      expect(document.components.schemas.CreateItemDto.properties.name.example).toBe('Iron sword');
    });

    it('pre-fills POST /tickets and /sessions with bodies a player may send as they are: 201, the player in', async () => {
      const player = await api.signInPlayer('swagger-tryout');
      for (const path of ['/tickets', '/sessions']) {
        const examples = document.paths[path].post.requestBody!.content['application/json'].examples!;
        const [first] = Object.values(examples);
        const created = await api.post(path, first.value, { token: player.token });
        expect({ path, status: created.status }).toEqual({ path, status: 201 });
        expect(created.body.users).toEqual([player.uid]);
      }
    });

    it('documents the error responses of every route, each with the ErrorBody schema', () => {
      const problems: string[] = [];
      const expectStatus = (operation: Operation, status: string, why: string) => {
        if (!operation.responses[status]) problems.push(`${operation.name}: no ${status} (${why})`);
      };
      for (const operation of operations) {
        const parameters = operation.parameters ?? [];
        if (operation.security?.some((requirement) => 'jwt' in requirement)) expectStatus(operation, '401', 'takes a token');
        if (parameters.some((parameter) => parameter.in === 'path')) expectStatus(operation, '400', 'a malformed id');
        // A storage collection is a namespace, not a record: one that holds nothing lists as an empty page.
        if (parameters.some((parameter) => parameter.in === 'path' && parameter.name !== 'collection')) {
          expectStatus(operation, '404', 'an unknown id');
        }
        if (operation.requestBody) expectStatus(operation, '400', 'a body to validate');
        if (parameters.some((parameter) => parameter.name === 'limit')) expectStatus(operation, '400', 'list parameters');
        // 431 comes from Node's HTTP parser, with no body.
        const errors = Object.entries(operation.responses).filter(([status]) => Number(status) >= 400 && status !== '431');
        if (errors.length === 0 && !['GET /health', 'GET /metrics'].includes(operation.name)) {
          problems.push(`${operation.name}: no error response at all`);
        }
        for (const [status, response] of errors) {
          const content = response.content?.['application/json'];
          if (content?.schema?.$ref !== '#/components/schemas/ErrorBody') problems.push(`${operation.name}: ${status} is not an ErrorBody`);
          if (content?.example && content.example.status !== Number(status)) {
            problems.push(`${operation.name}: the example of ${status} says ${content.example.status}`);
          }
        }
      }
      expectStatus(
        operations.find((operation) => operation.name === 'GET /auth/idp1')!,
        '503',
        'provider down',
      );
      expect(problems).toEqual([]);
      // Each error shows its own example in the UI, not the schema's 400.
      const findItem = operations.find((operation) => operation.name === 'GET /items/{id}')!.responses;
      expect(findItem['404'].content!['application/json'].example).toMatchObject({ status: 404, code: 'NOT_FOUND' });
      expect(findItem['401'].content!['application/json'].example).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    });
  });
});

interface SchemaObject {
  $ref?: string;
  type?: string;
  format?: string;
  enum?: unknown[];
  example?: unknown;
  items?: SchemaObject;
  allOf?: SchemaObject[];
  properties?: Record<string, SchemaObject>;
}
interface ResponseObject {
  $ref?: string;
  description: string;
  content?: Record<string, { schema?: SchemaObject; example?: { status: number; code: string } }>;
}
interface OperationObject {
  summary?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ $ref?: string; name: string; in: string }>;
  requestBody?: { content: Record<string, { schema?: SchemaObject; examples?: Record<string, { value: unknown }> }> };
  responses: Record<string, ResponseObject>;
}
type Operation = OperationObject & { name: string; path: string };
interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, SchemaObject & { properties: Record<string, SchemaObject> }> };
}

/**
 * The fields of a body schema for which Swagger UI would have to invent a value ("string",
 * 3fa85f64-…): every field needs an example, except enums (the UI offers their values) and nested
 * objects whose own fields all have one.
 */
function fieldsWithoutExample(document: OpenApiDocument, schema: SchemaObject, path = '', seen = new Set<string>()): string[] {
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop()!;
    if (seen.has(name)) return [];
    return fieldsWithoutExample(document, document.components.schemas[name], path || name, new Set([...seen, name]));
  }
  if (schema.example !== undefined || schema.enum) return [];
  if (schema.allOf?.length === 1) return fieldsWithoutExample(document, schema.allOf[0], path, seen);
  if (schema.type === 'array' && (schema.items?.$ref || schema.items?.properties)) {
    return fieldsWithoutExample(document, schema.items, `${path}[]`, seen);
  }
  if (schema.properties) {
    return Object.entries(schema.properties).flatMap(([field, property]) =>
      fieldsWithoutExample(document, property, `${path}.${field}`, seen),
    );
  }
  return [path];
}
