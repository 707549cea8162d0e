import { randomBytes } from 'node:crypto';

/** True only while serializeWithStoredJson runs, which writes StoredJson texts as they are. */
let splicing = false;

/**
 * A JSON value as PostgreSQL gave it (jsonb's text), to answer as it is: parsing a large value only to
 * write it again costs time for every node it holds (a megabyte of `{}` took about 0.4 s), copying its
 * text costs time for its bytes. Routes that answer such values declare `@FastifyRouteConfig({
 * storedJson: true })` and are written by serializeWithStoredJson; any other writer (a log line, an
 * event) gets the parsed value, as toJSON says.
 */
export class StoredJson {
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return splicing ? this : JSON.parse(this.text);
  }
}

/**
 * JSON.stringify of `payload` with each StoredJson written as its text: JSON.rawJSON takes only
 * primitives, so each is first written as a marker string (a random nonce and its index, which no other
 * string of the answer can hold) and the texts are put in its place.
 */
export function serializeWithStoredJson(payload: unknown): string {
  const texts: string[] = [];
  const nonce = randomBytes(8).toString('hex');
  let json: string;
  splicing = true;
  try {
    json = JSON.stringify(payload, (_key, value: unknown) => {
      if (!(value instanceof StoredJson)) return value;
      texts.push(value.text);
      return `${nonce}${texts.length - 1}`;
    });
  } finally {
    splicing = false;
  }
  if (texts.length === 0) return json;
  return json.replace(new RegExp(`"${nonce}(\\d+)"`, 'g'), (_marker, index: string) => texts[Number(index)]);
}
