import { randomBytes } from 'node:crypto';

/**
 * The texts of the answer serializeWithStoredJson is writing (undefined otherwise). Each StoredJson
 * met is written as a marker: a nonce chosen once per process and never sent, so that no other string
 * of an answer holds one, and its index here; the texts are then put in the markers' places.
 * JSON.rawJSON would do it in one pass but takes only primitives.
 */
let splicing: string[] | undefined;
const NONCE = randomBytes(12).toString('hex');
const MARKERS = new RegExp(`"${NONCE}(\\d+)"`, 'g');

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
    if (!splicing) return JSON.parse(this.text);
    return `${NONCE}${splicing.push(this.text) - 1}`;
  }
}

/** JSON.stringify of `payload` with each StoredJson written as its text. */
export function serializeWithStoredJson(payload: unknown): string {
  const texts: string[] = [];
  let json: string;
  splicing = texts;
  try {
    json = JSON.stringify(payload);
  } finally {
    splicing = undefined;
  }
  if (texts.length === 0) return json;
  return json.replace(MARKERS, (_marker, index: string) => texts[Number(index)]);
}
