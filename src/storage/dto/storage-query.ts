import { LIMITS } from '../../common/limits.js';
import { QueryInteger, QueryPattern, QueryUuid } from '../../common/query-params.js';
import { CURSOR_PATTERN } from '../../common/signed-cursors.js';

/** The query of a read of one object, or of a count: whose (the caller's when absent). */
export class OwnerQuery {
  @QueryUuid({ description: "Whose object: the caller's when absent." })
  ownerUid?: string;
}

export class CountQuery {
  @QueryUuid({ description: 'Count only the objects of this owner.' })
  ownerUid?: string;
}

/** A page's `limit` (1 to LIMITS.storageBatch) and `cursor` (the previous page's: signed, it holds the name it continues after). */
class PageQuery {
  @QueryInteger({ min: 1, max: LIMITS.storageBatch, default: LIMITS.storageBatch })
  limit: number;

  @QueryPattern(new RegExp(CURSOR_PATTERN), { means: 'must be the cursor of a previous page', description: 'The previous page’s cursor.' })
  cursor?: string;
}

export class CollectionsQuery extends PageQuery {
  @QueryUuid({ description: "Whose collections: the caller's when absent." })
  ownerUid?: string;
}

export class ObjectsQuery extends PageQuery {
  @QueryUuid({ description: "Whose objects: the caller's when absent." })
  ownerUid?: string;
}
