import { Secret } from './fields.js';
import { RecordEntity } from './record.entity.js';

class Chest extends RecordEntity {
  name: string;

  @Secret()
  keyHash: string | null;
}

class Barrel extends RecordEntity {
  name: string;
}

function chest(fields: Partial<Chest>): Chest {
  return Object.assign(new Chest(), { uid: 'c1', version: 0, name: 'Oak chest' }, fields);
}

describe('RecordEntity.toJSON', () => {
  it('leaves a secret field out of the JSON when it holds a value, or null', () => {
    expect(JSON.parse(JSON.stringify(chest({ keyHash: 'scrypt$abc' })))).toEqual({ uid: 'c1', version: 0, name: 'Oak chest' });
    expect(JSON.parse(JSON.stringify(chest({ keyHash: null })))).toEqual({ uid: 'c1', version: 0, name: 'Oak chest' });
  });

  it('does not change the record it leaves the secret field out of', () => {
    const record = chest({ keyHash: 'scrypt$abc' });
    JSON.stringify(record);
    expect(record.keyHash).toBe('scrypt$abc');
  });

  it('answers a record whose secret fields are unset (a list page read without them) as itself', () => {
    const record = chest({});
    expect(record.toJSON()).toBe(record);
    expect(JSON.stringify(record)).toBe('{"uid":"c1","version":0,"name":"Oak chest"}');
  });

  it('answers a record of a class without secret fields as itself', () => {
    const record = Object.assign(new Barrel(), { uid: 'b1', name: 'Rain barrel' });
    expect(record.toJSON()).toBe(record);
  });
});
