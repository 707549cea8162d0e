import { QueryParam } from '../../common/query-params.js';
import { isLanguageTag, LANGUAGE_TAG, MAX_LANGUAGE_TAG } from '../text-language.js';

export class ResolveTextQuery {
  @QueryParam<string>({
    schema: { type: 'string', pattern: LANGUAGE_TAG.source, maxLength: MAX_LANGUAGE_TAG, example: 'pt-BR' },
    description: 'A BCP 47 language tag; when given, Accept-Language is not consulted.',
    means: 'must be one BCP 47 language tag, such as en or pt-BR',
    parse: (text) => (isLanguageTag(text) ? text : undefined),
  })
  lang?: string;
}
