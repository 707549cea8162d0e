import { serializeWithStoredJson, StoredJson } from './stored-json.js';

describe('serializeWithStoredJson', () => {
  it('writes each stored text as it is, where it stands, and everything else as JSON.stringify does', () => {
    const payload = {
      key: 'k',
      value: new StoredJson('{"a": [1, {}], "s": "$& $1 \\" }"}'),
      list: [new StoredJson('[]'), 'plain', new StoredJson('null')],
    };
    expect(serializeWithStoredJson(payload)).toBe('{"key":"k","value":{"a": [1, {}], "s": "$& $1 \\" }"},"list":[[],"plain",null]}');
  });

  it('leaves an answer without stored texts to JSON.stringify, and parses them for any other writer', () => {
    expect(serializeWithStoredJson({ n: 1, s: '"0"' })).toBe(JSON.stringify({ n: 1, s: '"0"' }));
    expect(JSON.stringify({ value: new StoredJson('{"a": 1}') })).toBe('{"value":{"a":1}}');
  });

  it('does not take a string that looks like a marker from another answer for one', () => {
    const first = serializeWithStoredJson({ value: new StoredJson('{"x": 1}') });
    expect(serializeWithStoredJson({ echoed: first, value: new StoredJson('2') })).toBe(JSON.stringify({ echoed: first, value: 2 }));
  });
});
