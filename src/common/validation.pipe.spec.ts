import 'reflect-metadata';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsOptional, IsString } from 'class-validator';
import type { ApiException } from './errors.js';
import { isJsonObject, JsonValue, smallJsonObjectProblem } from './json-values.js';
import { RequestValidationPipe } from './validation.pipe.js';
import { EachNested } from './validators.js';

class SaveDto {
  @IsString()
  key: string;

  @JsonValue((value) => (isJsonObject(value) ? undefined : 'must be a JSON object'))
  value: Record<string, unknown>;

  @IsOptional()
  @JsonValue((value) => smallJsonObjectProblem(value, 64))
  metadata?: Record<string, unknown> | null;
}

class BatchDto {
  @IsArray()
  @ArrayMaxSize(3)
  @EachNested()
  @Type(() => SaveDto)
  objects: SaveDto[];
}

const pipe = new RequestValidationPipe();
const asBody = (value: unknown) => pipe.transform(value, { type: 'body', metatype: BatchDto });

async function refusal(value: unknown) {
  try {
    await asBody(value);
  } catch (error) {
    return { message: (error as ApiException).message, errors: (error as ApiException).extra.errors };
  }
  throw new Error('accepted');
}

/** A field whose value throws when read: what copies the body reads it, what checks its keys does not. */
const untouchable = () => {
  const holder = {};
  Object.defineProperty(holder, 'junk', {
    enumerable: true,
    get() {
      throw new Error('the field was read');
    },
  });
  return holder;
};

describe('RequestValidationPipe', () => {
  it('answers the DTO with JSON fields as they were parsed, not copies', async () => {
    const value = { level: 12, inventory: [{ id: 'a' }] };
    const dto = (await asBody({ objects: [{ key: 'slot-1', value, metadata: null }] })) as BatchDto;
    expect(dto).toBeInstanceOf(BatchDto);
    expect(dto.objects[0]).toBeInstanceOf(SaveDto);
    expect(dto.objects[0].value).toBe(value);
    expect(dto.objects[0].metadata).toBeNull();
  });

  it('refuses an unknown field before anything reads it, at the top and nested', async () => {
    expect(await refusal(Object.assign(untouchable(), { objects: [] }))).toEqual({
      message: 'junk property junk should not exist',
      errors: [{ field: 'junk', message: 'property junk should not exist' }],
    });
    const nested = Object.assign(untouchable(), { key: 'k', value: {} });
    expect((await refusal({ objects: [{ key: 'k', value: {} }, nested] })).errors).toEqual([
      { field: 'objects.1.junk', message: 'property junk should not exist' },
    ]);
  });

  it('refuses a list past its @ArrayMaxSize before reading its elements', async () => {
    const objects = [1, 2, 3, 4].map(() => untouchable());
    expect((await refusal({ objects })).errors).toEqual([{ field: 'objects', message: 'must contain no more than 3 elements' }]);
  });

  it('refuses a JSON field its check refuses, naming it, and lets optional ones be left out', async () => {
    expect(
      await refusal({
        objects: [
          { key: 'k', value: {} },
          { key: 'k', value: [] },
        ],
      }),
    ).toEqual({
      message: 'objects.1.value must be a JSON object',
      errors: [{ field: 'objects.1.value', message: 'must be a JSON object' }],
    });
    expect((await refusal({ objects: [{ key: 'k' }] })).errors).toEqual([{ field: 'objects.0.value', message: 'must be a JSON object' }]);
    expect((await refusal({ objects: [{ key: 'k', value: {}, metadata: { x: Infinity } }] })).errors).toEqual([
      { field: 'objects.0.metadata', message: 'holds a number beyond the finite range at x' },
    ]);
  });

  it('leaves the other problems to class-validator, all of them', async () => {
    expect((await refusal({ objects: [{ key: 5, value: {} }, 'text'] })).errors).toEqual(
      expect.arrayContaining([
        { field: 'objects', message: 'must be a list of objects' },
        { field: 'objects.0.key', message: 'must be a string' },
      ]),
    );
  });

  it('refuses a body that is not an object', async () => {
    expect((await refusal([])).errors).toEqual([{ field: 'body', message: 'must be a JSON object' }]);
  });
});
