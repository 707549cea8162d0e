import { ApiException } from './errors.js';
import { QueryInteger, QueryParam, QueryUuid, refuse } from './query-params.js';
import { RequestValidationPipe } from './validation.pipe.js';

class ExampleQuery {
  @QueryInteger({ min: 1, max: 100, default: 20 })
  limit: number;

  @QueryUuid({ required: true })
  ownerUid: string;

  @QueryParam<string[]>({
    schema: { type: 'string', maxLength: 20 },
    means: 'must be comma-separated words',
    parse: (text, query) =>
      query.limit === '1' ? refuse('needs a limit above 1') : /^\w+(,\w+)*$/.test(text) ? text.split(',') : undefined,
  })
  tags?: string[];
}

const pipe = new RequestValidationPipe();
const read = (query: Record<string, unknown>) => pipe.transform(query, { type: 'query', metatype: ExampleQuery, data: undefined });
const uid = '0B6F2C1E-7D4A-4E8B-9A35-2F1C6D8E9B70';

/** The error details of a refused query. */
async function refusal(query: Record<string, unknown>): Promise<unknown> {
  const error: unknown = await read(query).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiException);
  return (error as ApiException).extra.errors;
}

describe('query DTOs', () => {
  it('read each parameter into its value, with the defaults of those left out', async () => {
    await expect(read({ ownerUid: uid })).resolves.toEqual(Object.assign(new ExampleQuery(), { limit: 20, ownerUid: uid.toLowerCase() }));
    await expect(read({ ownerUid: uid, limit: '7', tags: 'a,b' })).resolves.toMatchObject({ limit: 7, tags: ['a', 'b'] });
  });

  it('refuse each parameter at fault, by name: malformed, out of bounds, repeated, missing or unknown', async () => {
    await expect(refusal({ ownerUid: uid, limit: '0' })).resolves.toEqual([
      { field: 'limit', message: 'must be an integer from 1 to 100' },
    ]);
    await expect(refusal({ ownerUid: uid, limit: '1.5' })).resolves.toEqual([
      { field: 'limit', message: 'must be an integer from 1 to 100' },
    ]);
    await expect(refusal({ ownerUid: [uid, uid] })).resolves.toEqual([{ field: 'ownerUid', message: 'is given more than once' }]);
    await expect(refusal({})).resolves.toEqual([{ field: 'ownerUid', message: 'is required: it must be a UUID' }]);
    await expect(refusal({ ownerUid: uid, color: 'red' })).resolves.toEqual([
      expect.objectContaining({ field: 'color', message: expect.stringMatching(/should not exist/) }),
    ]);
    await expect(refusal({ ownerUid: uid, tags: 'a;b' })).resolves.toEqual([{ field: 'tags', message: 'must be comma-separated words' }]);
    await expect(refusal({ ownerUid: uid, limit: '1', tags: 'a' })).resolves.toEqual([{ field: 'tags', message: 'needs a limit above 1' }]);
  });
});
