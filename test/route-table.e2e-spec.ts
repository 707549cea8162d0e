import { randomUUID } from 'node:crypto';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import { RequestMethod, type Type } from '@nestjs/common';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum.js';
import { ModulesContainer } from '@nestjs/core';
import { getMetadataStorage } from 'class-validator';
import { schemaValidator } from './support/contract.js';
import { dataChecksum } from './support/data-checksum.js';
import { expectErrorBody, expectValidationError } from './support/expectations.js';
import { dereference } from './support/openapi-refs.js';
import { TestApp } from './support/test-app.js';

type Json = Record<string, any>;

/** A route as Nest declares it: method, path (`/storage/:collection`) and where its handler lives. */
interface Route {
  method: string;
  path: string;
  controller: Type;
  handler: string;
}

/** Every route of every controller the app runs, read from the metadata Nest routes by. */
function routesOf(api: TestApp): Route[] {
  const controllers = [...api.app.get(ModulesContainer).values()].flatMap((module) =>
    [...module.controllers.values()].map((wrapper) => wrapper.metatype as Type),
  );
  return controllers.flatMap((controller) => {
    const prefixes = [Reflect.getMetadata(PATH_METADATA, controller) as string | string[]].flat();
    const prototype = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(prototype).flatMap((handler) => {
      const target = prototype[handler];
      if (handler === 'constructor' || typeof target !== 'function' || Reflect.getMetadata(PATH_METADATA, target) === undefined) return [];
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, target) as number];
      const paths = [Reflect.getMetadata(PATH_METADATA, target) as string | string[]].flat();
      return prefixes.flatMap((prefix) =>
        paths.map((path) => ({
          method,
          path: `/${[prefix, path].join('/')}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1'),
          controller,
          handler,
        })),
      );
    });
  });
}

/**
 * Two findings of an OpenAPI-driven property-based tester (Schemathesis), and the rules that keep them
 * away: every body and query reaches the validation pipe as a DTO class (a `JoinLeaderboardDto |
 * undefined` body reached the handler unchecked, and `{"personaUid":{}}` was a 500), and no fixed path
 * sits where another route takes a parameter that could hold its text (`GET /storage/{collection}/count`
 * answered the count where an object whose key is `count` should have been).
 */
describe('the route table', () => {
  let api: TestApp;
  let document: Json;
  let routes: Route[];

  beforeAll(async () => {
    api = await TestApp.start();
    document = (await api.get<Json>('/docs-json')).body;
    routes = routesOf(api);
  });

  afterAll(async () => {
    await api.close();
  });

  it('is read whole: every route of the document is found among the controllers', () => {
    const declared = new Set(routes.map(({ method, path }) => `${method} ${path.replace(/:(\w+)/g, '{$1}')}`));
    const documented = Object.entries(document.paths as Json).flatMap(([path, item]) =>
      Object.keys(item as Json)
        .filter((method) => ['get', 'post', 'put', 'delete', 'patch'].includes(method))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.filter((route) => !declared.has(route))).toEqual([]);
  });

  describe('inputs', () => {
    it('hands every body and whole query to the validation pipe as a DTO class, and every single query value to a pipe', () => {
      const validated = (type: unknown) =>
        typeof type === 'function' && getMetadataStorage().getTargetValidationMetadatas(type, '', true, false).length > 0;
      const problems = routes.flatMap(({ method, path, controller, handler }) => {
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, handler) ?? {}) as Record<
          string,
          { index: number; data?: unknown; pipes?: unknown[] }
        >;
        const types = (Reflect.getMetadata('design:paramtypes', controller.prototype, handler) ?? []) as unknown[];
        return Object.entries(args).flatMap(([key, { index, data, pipes }]) => {
          const kind = Number(key.split(':')[0]) as RouteParamtypes;
          const name = JSON.stringify(data);
          const where = `${method} ${path} (${controller.name}.${handler}, argument ${index})`;
          if ((kind === RouteParamtypes.BODY || kind === RouteParamtypes.QUERY) && data === undefined && !validated(types[index]))
            return [
              `${where}: its ${kind === RouteParamtypes.BODY ? 'body' : 'query'} is ${(types[index] as Type | undefined)?.name}, not a DTO class`,
            ];
          if (kind === RouteParamtypes.QUERY && data !== undefined && !pipes?.length) return [`${where}: query ${name} has no pipe`];
          if (kind === RouteParamtypes.BODY && data !== undefined) return [`${where}: a body field read alone (@Body(${name}))`];
          return [];
        });
      });
      expect(problems).toEqual([]);
    });

    it('refuses a join whose persona is not a uuid with 400, where it failed with 500', async () => {
      const admin = await api.signIn('admin');
      const player = await api.newPlayerWithPersona('joiner');
      const board = await api.created<{ uid: string }>('/leaderboards', { name: 'Join rules', joinRequired: true }, admin);
      for (const personaUid of [{}, 5, ['x'], 'nobody']) {
        expectValidationError(await api.post(`/leaderboards/${board.uid}/join`, { personaUid }, { token: player.token }), 'personaUid');
      }
      expect(await api.countRows('leaderboard_records')).toBe(0);
      // With no body, or an empty one, the caller's first persona joins.
      expect((await api.post(`/leaderboards/${board.uid}/join`, undefined, { token: player.token })).status).toBe(200);
      expect((await api.post(`/leaderboards/${board.uid}/join`, {}, { token: player.token })).body).toMatchObject({
        personaUid: player.personaUid,
      });
    });

    it('refuses, by name, a query parameter a route does not take, one given twice, and one out of bounds', async () => {
      const admin = await api.signIn('admin');
      const board = await api.created<{ uid: string }>('/leaderboards', { name: 'Query rules' }, admin);
      for (const [path, field] of [
        [`/leaderboards/${board.uid}/records?colour=red`, 'colour'],
        [`/leaderboards/${board.uid}/records?limit=1&limit=2`, 'limit'],
        [`/leaderboards/${board.uid}/records?limit=101`, 'limit'],
        [`/leaderboards/${board.uid}/records?personaUids=${randomUUID()}&cursor=abc`, 'cursor'],
        [`/leaderboards/${board.uid}/records/me?limit=5`, 'limit'],
        ['/storage?ownerUid=a&ownerUid=b', 'ownerUid'],
        ['/storage/saves/slot?cursor=abc', 'cursor'],
        ['/notifications?after=1-1&after=2-2', 'after'],
        ['/admin/audit?since=yesterday', 'since'],
        ['/inventories/ledger', 'personaUid'],
        [`/users/${randomUUID()}/audit?before=x`, 'before'],
        [`/assets/text/${randomUUID()}/resolve?lang=en&lang=pt`, 'lang'],
        [`/sessions/${randomUUID()}/join?password=${'x'.repeat(201)}`, 'password'],
      ]) {
        expectValidationError(await api.get(path, { token: admin }), field);
      }
    });
  });

  describe('fixed paths', () => {
    const ajv = schemaValidator();
    let documentAdded = false;

    /** Whether a path parameter of `route` may hold `text`, as the document states it (any text when it states nothing). */
    function takes(route: Route, name: string, text: string): boolean {
      const operation = document.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()] as Json | undefined;
      const parameter = (operation?.parameters as Json[] | undefined)
        ?.map((node) => dereference<Json>(document, node))
        .find((candidate) => candidate.in === 'path' && candidate.name === name);
      if (!parameter?.schema) return true;
      if (!documentAdded) ajv.addSchema(document, 'document');
      documentAdded = true;
      const schema = parameter.schema.$ref ? { $ref: `document${parameter.schema.$ref}` } : parameter.schema;
      return ajv.validate(schema, text);
    }

    it('never sit where another route takes a parameter that could hold their text, whatever the methods', () => {
      const segments = (path: string) => path.split('/').slice(1);
      const collisions = routes.flatMap((fixed) =>
        routes.flatMap((other) => {
          const [mine, theirs] = [segments(fixed.path), segments(other.path)];
          if (other === fixed || mine.length !== theirs.length) return [];
          const parameter = (segment: string) => segment.startsWith(':') || segment.includes('*');
          // A path both could take: equal fixed segments, and a parameter where the other is fixed that may hold its text.
          const shared = mine.every((segment, index) => {
            const their = theirs[index];
            if (!parameter(segment) && !parameter(their)) return segment === their;
            if (parameter(segment) && parameter(their)) return true;
            return parameter(their) ? takes(other, their.slice(1), segment) : takes(fixed, segment.slice(1), their);
          });
          const shadows = mine.some((segment, index) => !parameter(segment) && parameter(theirs[index]));
          return shared && shadows ? [`${fixed.method} ${fixed.path} takes paths of ${other.method} ${other.path}`] : [];
        }),
      );
      expect(collisions).toEqual([]);
    });

    it("answer another method with 405 and their own methods in Allow, not the parameter route's 400", async () => {
      const admin = await api.signIn('admin');
      const board = await api.created<{ uid: string }>('/leaderboards', { name: 'Fixed paths' }, admin);
      for (const [method, path, allow] of [
        ['PUT', '/tickets/stats', 'GET, HEAD'],
        ['DELETE', '/tickets/count', 'GET, HEAD'],
        ['OPTIONS', '/storage/read', 'POST'],
        ['GET', '/storage/read', 'POST'],
        ['DELETE', `/leaderboards/${board.uid}/records/me`, 'GET, HEAD'],
        ['DELETE', `/personas/${randomUUID()}/archetypes/ranger/skills/count`, 'GET, HEAD'],
      ]) {
        const before = await dataChecksum(api.database);
        const response = await api.request(method, path, { token: admin, body: method === 'GET' || method === 'OPTIONS' ? undefined : {} });
        expect({ method, path, allow: response.headers.allow }).toEqual({ method, path, allow });
        expectErrorBody(response, 405, 'METHOD_NOT_ALLOWED');
        expect(await dataChecksum(api.database)).toEqual(before);
      }
    });

    it('leave every key to the object that has it: a key `count` is read by its path, and admins count under /admin/storage', async () => {
      const admin = await api.signIn('admin');
      const player = await api.newPlayer('saver');
      const objects = [
        { collection: 'saves', key: 'count', value: { slots: 3 } },
        { collection: 'saves', key: 'slot-1', value: { level: 2 } },
      ];
      expect((await api.put('/storage', { objects }, { token: player.token })).status).toBe(200);
      const read = await api.get(`/storage/saves/count`, { token: player.token });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ collection: 'saves', key: 'count', value: { slots: 3 }, ownerUid: player.uid });
      expect((await api.get(`/admin/storage/saves/count?ownerUid=${player.uid}`, { token: admin })).body).toEqual({ count: 2 });
    });

    it('keep the names they hold from records: no collection `read`, no skill `count`', async () => {
      const player = await api.newPlayerWithPersona('namer');
      const before = await dataChecksum(api.database);
      expectValidationError(
        await api.put('/storage', { objects: [{ collection: 'read', key: 'k', value: {} }] }, { token: player.token }),
        'objects.0.collection',
      );
      expectValidationError(
        await api.post(`/personas/${player.personaUid}/archetypes/ranger/skills/count/progress`, { value: 1 }, { token: player.token }),
        'skillUid',
      );
      expect(await dataChecksum(api.database)).toEqual(before);
      // A collection or a skill that merely starts so is no reserved name.
      expect((await api.put('/storage', { objects: [{ collection: 'reads', key: 'k', value: {} }] }, { token: player.token })).status).toBe(
        200,
      );
      expect(
        (await api.post(`/personas/${player.personaUid}/archetypes/ranger/skills/counting/progress`, { value: 1 }, { token: player.token }))
          .status,
      ).toBe(204);
    });
  });
});
