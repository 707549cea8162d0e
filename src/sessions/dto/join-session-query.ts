import { QueryParam } from '../../common/query-params.js';
import { MAX_SESSION_PASSWORD } from './create-session.dto.js';

export class JoinSessionQuery {
  /** Kept for older clients: a URL may end up in proxies' logs. */
  @QueryParam<string>({
    schema: { type: 'string', maxLength: MAX_SESSION_PASSWORD },
    description: 'The join password (prefer the header).',
    means: `must be at most ${MAX_SESSION_PASSWORD} characters`,
    parse: (text) => (text.length <= MAX_SESSION_PASSWORD ? text : undefined),
  })
  password?: string;
}
