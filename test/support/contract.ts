import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OpenAPIObject } from '@nestjs/swagger';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { dereference } from './openapi-refs.js';

// ajv-formats is CommonJS with its function as `default`; under ESM interop it may be one level down.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as typeof addFormatsModule;

/** What a test saw: the status, the headers and the body (parsed when it was JSON). */
export interface SeenResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: unknown;
}

interface Operation {
  responses: Record<
    string,
    { $ref?: string; headers?: Record<string, { $ref?: string; required?: boolean }>; content?: Record<string, unknown> }
  >;
}

const DOCUMENT_ID = 'https://game-backend.test/openapi.json';
const pointer = (...segments: string[]) => segments.map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/**
 * The guard that keeps the OpenAPI document true: every answer the e2e suites receive is checked
 * against it (the status is one the operation lists; the JSON body is valid against its schema, with
 * Ajv; the headers it marks required are there). A test that receives an answer the document does not
 * describe fails, naming the operation and the mismatch. The count of answers checked is written for
 * the run's summary (global-teardown.mjs).
 */
export class ApiContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly routes: Array<{ template: string; pattern: RegExp; parameters: number }>;
  private checked = 0;

  constructor(private readonly document: OpenAPIObject) {
    addFormats(this.ajv);
    this.ajv.addSchema(document, DOCUMENT_ID);
    this.routes = Object.keys(document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
        parameters: (template.match(/\{/g) ?? []).length,
      }))
      // A path with fixed segments wins over one with parameters in their place (/items/count, /items/{id}).
      .sort((a, b) => a.parameters - b.parameters);
  }

  /** The problems of an answer to `method url`, empty when the document describes it. */
  problems(method: string, url: string, response: SeenResponse): string[] {
    const path = url.split('?')[0];
    // The documentation itself (Swagger UI and the document) is not an operation of the API, nor are
    // CORS preflights, which the CORS layer answers for every route (README, Security).
    if (/^\/docs(?:$|[/-])/.test(path) || method.toUpperCase() === 'OPTIONS') return [];
    this.checked += 1;
    const template = this.routes.find((route) => route.pattern.test(path))?.template;
    const operation = template ? (this.document.paths[template] as Record<string, Operation>)[method.toLowerCase()] : undefined;
    const name = `${method.toUpperCase()} ${template ?? path}`;
    if (!operation) {
      // No such operation: the router's 404 (no route) or 405 (another method), or what the HTTP layer
      // refuses before any route (a malformed URL or body, 400; body limits, 413 and 415).
      if (![400, 404, 405, 413, 415].includes(response.status)) return [`${name} is not in the document, yet answered ${response.status}`];
      return this.bodyProblems(name, response, '#/components/schemas/ErrorBody');
    }
    const key = String(response.status) in operation.responses ? String(response.status) : 'default';
    // Answers and headers many operations share are $refs to `components` (src/openapi/for-generators.ts).
    const shared = operation.responses[key]?.$ref;
    const documented = dereference(this.document, operation.responses[key]);
    if (!documented) {
      return [
        `${name} answered ${response.status}, which the document does not list (it lists ${Object.keys(operation.responses).join(', ')})`,
      ];
    }
    const problems: string[] = [];
    for (const [header, own] of Object.entries(documented.headers ?? {})) {
      const spec = dereference(this.document, own);
      if (spec.required && response.headers[header.toLowerCase()] === undefined)
        problems.push(`${name} ${response.status}: no ${header} header`);
    }
    const contentType = String(response.headers['content-type'] ?? '');
    if (contentType.includes('json')) {
      if (!documented.content?.['application/json'])
        problems.push(`${name} ${response.status}: a JSON body the document does not describe`);
      else {
        const location = shared
          ? `${shared}/${pointer('content', 'application/json', 'schema')}`
          : `#/${pointer('paths', template!, method.toLowerCase(), 'responses', key, 'content', 'application/json', 'schema')}`;
        problems.push(...this.bodyProblems(name, response, location));
      }
    }
    return problems;
  }

  /** Throws, naming the operation and the mismatch, when the document does not describe the answer. */
  check(method: string, url: string, response: SeenResponse): void {
    const problems = this.problems(method, url, response);
    if (problems.length > 0) {
      throw new Error(
        `the answer disagrees with the OpenAPI document:\n  ${problems.join('\n  ')}\n  body: ${JSON.stringify(response.body).slice(0, 400)}`,
      );
    }
  }

  /** Appends how many answers this contract checked to the run's tally (test/support/global-teardown.mjs prints it). */
  report(): void {
    if (this.checked === 0 || !process.env.TEST_DATA_DIR) return;
    appendFileSync(join(process.env.TEST_DATA_DIR, '..', 'contract-checks.txt'), `${this.checked}\n`);
    this.checked = 0;
  }

  private bodyProblems(name: string, response: SeenResponse, location: string): string[] {
    let validate = this.validators.get(location);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}${location}` });
      this.validators.set(location, validate);
    }
    if (validate(response.body)) return [];
    return (validate.errors ?? [])
      .slice(0, 5)
      .map((error) => `${name} ${response.status}: body${error.instancePath} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
  }
}
