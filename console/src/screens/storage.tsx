import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { api, ApiError, must, type Schema } from '../api.js';
import { navigate } from '../router.js';
import { Confirm, Conflict, ErrorNote, Link, Loaded, Table, Time, useAnnouncer, useNextCursors } from '../ui.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PAGE = 25;

type StoredObject = Schema<'StorageObject'>;
type ReadPermission = StoredObject['permissionRead'];
type WritePermission = StoredObject['permissionWrite'];

const pretty = (value: unknown) => JSON.stringify(value, null, 2);
const storagePath = (owner: string, collection?: string, key?: string) =>
  ['/storage', owner, collection, key]
    .filter((part) => part !== undefined)
    .map((part, index) => (index === 0 ? part : encodeURIComponent(part)))
    .join('/');

/** A player's collections (`?owner=<uid>`), each with its objects and bytes. */
export function StorageOwner({ query }: { query: URLSearchParams }) {
  const owner = query.get('owner') ?? '';
  const [draft, setDraft] = useState(owner);
  return (
    <section>
      <h1>Storage</h1>
      <form
        role="search"
        onSubmit={(event) => (event.preventDefault(), navigate(`/storage?owner=${encodeURIComponent(draft.trim().toLowerCase())}`))}
      >
        <fieldset role="group">
          <label class="visually-hidden" for="storage-owner">
            Owner uid
          </label>
          <input
            id="storage-owner"
            required
            pattern={UUID.source}
            placeholder="Owner uid"
            value={draft}
            onInput={(event) => setDraft(event.currentTarget.value)}
          />
          <button type="submit">Open</button>
        </fieldset>
      </form>
      {UUID.test(owner) ? (
        <Collections key={owner} owner={owner} />
      ) : (
        <p class="empty">Open a player&apos;s cloud save by their user uid (the player page links here).</p>
      )}
    </section>
  );
}

/** The collections of one owner, by the API's cursor; also on the player page. */
export function Collections({ owner, limit = PAGE }: { owner: string; limit?: number }) {
  const { cursor, pager } = useNextCursors();
  const collections = useQuery({
    queryKey: ['storage-collections', owner, limit, cursor],
    queryFn: () => must(api.GET('/storage', { params: { query: { ownerUid: owner, limit, ...(cursor ? { cursor } : {}) } } })),
  });
  return (
    <Loaded query={collections} empty={(page) => page.collections.length === 0 && !cursor}>
      {(page) => (
        <>
          <Table caption={`Storage collections of ${owner}`} head={['Collection', 'Objects', 'Bytes']}>
            {page.collections.map((row) => (
              <tr key={row.collection}>
                <td>
                  <Link to={storagePath(owner, row.collection)}>{row.collection}</Link>
                </td>
                <td>{row.objects}</td>
                <td>{row.bytes}</td>
              </tr>
            ))}
          </Table>
          {pager(page.cursor, 'Collection pages')}
        </>
      )}
    </Loaded>
  );
}

export function StorageCollection({ owner, collection }: { owner: string; collection: string }) {
  const { cursor, pager } = useNextCursors();
  const objects = useQuery({
    queryKey: ['storage-objects', owner, collection, cursor],
    queryFn: () =>
      must(
        api.GET('/storage/{collection}', {
          params: { path: { collection }, query: { ownerUid: owner, limit: PAGE, ...(cursor ? { cursor } : {}) } },
        }),
      ),
  });
  return (
    <section>
      <p>
        <Link to={`/storage?owner=${owner}`}>← Collections of {owner}</Link>
      </p>
      <h1>Collection {collection}</h1>
      <Loaded query={objects} empty={(page) => page.objects.length === 0 && !cursor}>
        {(page) => (
          <>
            <Table caption={`Objects in ${collection}`} head={['Key', 'Read', 'Write', 'Version', 'Changed']}>
              {page.objects.map((object) => (
                <tr key={object.key}>
                  <td>
                    <Link to={storagePath(owner, collection, object.key)}>{object.key}</Link>
                  </td>
                  <td>{object.permissionRead}</td>
                  <td>{object.permissionWrite}</td>
                  <td>
                    <code>{object.version.slice(0, 8)}</code>
                  </td>
                  <td>
                    <Time value={object.dateModified} />
                  </td>
                </tr>
              ))}
            </Table>
            {pager(page.cursor, 'Object pages')}
          </>
        )}
      </Loaded>
    </section>
  );
}

const readObject = (owner: string, collection: string, key: string) =>
  must(api.GET('/storage/{collection}/{key}', { params: { path: { collection, key }, query: { ownerUid: owner } } }));

/** One object: its JSON value edited with the version read, so that a save over someone else's shows both. */
export function StorageObjectPage({ owner, collection, storageKey }: { owner: string; collection: string; storageKey: string }) {
  const object = useQuery({
    queryKey: ['storage-object', owner, collection, storageKey],
    queryFn: () => readObject(owner, collection, storageKey),
  });
  return (
    <section>
      <p>
        <Link to={storagePath(owner, collection)}>← Collection {collection}</Link>
      </p>
      <h1>
        {collection} / {storageKey}
      </h1>
      <Loaded query={object}>{(loaded) => <ObjectEditor key={loaded.version} object={loaded} />}</Loaded>
    </section>
  );
}

function ObjectEditor({ object }: { object: StoredObject }) {
  const client = useQueryClient();
  const { ownerUid, collection, key } = object;
  const [status, announce] = useAnnouncer();
  const [text, setText] = useState(pretty(object.value));
  const [version, setVersion] = useState(object.version);
  const [permissionRead, setPermissionRead] = useState<ReadPermission>(object.permissionRead);
  const [permissionWrite, setPermissionWrite] = useState<WritePermission>(object.permissionWrite);
  const [reason, setReason] = useState('');
  const [conflict, setConflict] = useState<StoredObject | 'deleted' | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const header = () => (reason ? { 'X-Audit-Reason': reason } : {});

  const save = useMutation({
    mutationFn: async (atVersion: string) => {
      let value: Record<string, unknown>;
      try {
        value = JSON.parse(text) as Record<string, unknown>;
      } catch {
        throw new Error('The value is not valid JSON.');
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('The value must be a JSON object.');
      const answer = await must(
        api.PUT('/storage', {
          params: { header: header() },
          body: { objects: [{ ownerUid, collection, key, value, version: atVersion, permissionRead, permissionWrite }] },
        }),
      );
      return answer.acks[0].version;
    },
    onSuccess: (saved) => {
      setConflict(null);
      setVersion(saved);
      announce('Saved.');
      void client.invalidateQueries({ queryKey: ['storage-objects', ownerUid, collection] });
      void client.invalidateQueries({ queryKey: ['storage-collections', ownerUid] });
    },
    onError: async (error) => {
      announce('');
      if (!(error instanceof ApiError && error.code === 'VERSION_CONFLICT')) return;
      setConflict(
        await readObject(ownerUid, collection, key).catch((missing) =>
          missing instanceof ApiError && missing.status === 404 ? 'deleted' : null,
        ),
      );
    },
  });
  const remove = useMutation({
    mutationFn: () =>
      must(api.DELETE('/storage', { params: { header: header() }, body: { objects: [{ ownerUid, collection, key, version }] } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['storage-objects', ownerUid, collection] });
      void client.invalidateQueries({ queryKey: ['storage-collections', ownerUid] });
      navigate(storagePath(ownerUid, collection));
    },
    onError: async (error) => {
      setConfirmDelete(false);
      if (error instanceof ApiError && error.code === 'VERSION_CONFLICT')
        setConflict(await readObject(ownerUid, collection, key).catch(() => 'deleted' as const));
    },
  });

  return (
    <>
      <p>
        Owner <Link to={`/players/${ownerUid}`}>{ownerUid}</Link> · version <code>{version}</code> · changed{' '}
        <Time value={object.dateModified} />
      </p>
      <form onSubmit={(event) => (event.preventDefault(), announce('Saving…'), save.mutate(version))}>
        <label>
          Value (JSON object)
          <textarea class="json" rows={14} spellcheck={false} value={text} onInput={(event) => setText(event.currentTarget.value)} />
        </label>
        <div class="grid">
          <label>
            Who reads it
            <select value={permissionRead} onChange={(event) => setPermissionRead(event.currentTarget.value as ReadPermission)}>
              <option value="NONE">NONE: admins only</option>
              <option value="OWNER">OWNER: the owner too</option>
              <option value="PUBLIC">PUBLIC: every player</option>
            </select>
          </label>
          <label>
            Who writes it
            <select value={permissionWrite} onChange={(event) => setPermissionWrite(event.currentTarget.value as WritePermission)}>
              <option value="NONE">NONE: admins only</option>
              <option value="OWNER">OWNER: the owner too</option>
            </select>
          </label>
          <label>
            Reason (kept in the admin audit)
            <input maxLength={500} value={reason} onInput={(event) => setReason(event.currentTarget.value)} />
          </label>
        </div>
        <button type="submit" aria-busy={save.isPending}>
          Save
        </button>{' '}
        <button type="button" class="contrast" onClick={() => setConfirmDelete(true)}>
          Delete
        </button>
      </form>
      {save.error && !conflict && <ErrorNote error={save.error} />}
      {remove.error && !conflict && <ErrorNote error={remove.error} />}
      {status}
      {conflict && (
        <Conflict
          title={
            conflict === 'deleted'
              ? 'Someone else deleted this object while you edited it'
              : `Someone else saved this object (now version ${conflict.version.slice(0, 8)}) while you edited it`
          }
          mine={text}
          theirs={conflict === 'deleted' ? '(deleted)' : pretty(conflict.value)}
          keepLabel={conflict === 'deleted' ? 'Keep mine (create it again)' : 'Keep mine (save over their version)'}
          onKeep={() => {
            const over = conflict === 'deleted' ? '*' : conflict.version;
            // In the same render as the conflict's removal: a "Saved." still shown is never taken for this save's.
            setConflict(null);
            setVersion(over);
            announce('Saving…');
            save.mutate(over);
          }}
          onTake={
            conflict === 'deleted'
              ? undefined
              : () => (
                  setText(pretty(conflict.value)),
                  setVersion(conflict.version),
                  setPermissionRead(conflict.permissionRead),
                  setPermissionWrite(conflict.permissionWrite),
                  setConflict(null)
                )
          }
        />
      )}
      <Confirm
        open={confirmDelete}
        title={`Delete ${collection}/${key}?`}
        confirmLabel="Delete"
        onConfirm={() => remove.mutate()}
        onCancel={() => setConfirmDelete(false)}
      >
        <p>The object is removed from the player&apos;s cloud save (only if nobody changed it since you read it).</p>
      </Confirm>
    </>
  );
}
