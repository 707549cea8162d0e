import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { api, ApiError, must, type Schema } from '../api.js';
import { navigate } from '../router.js';
import { Confirm, Conflict, ErrorNote, Link, Loaded, Pager, Table, Time, useAnnouncer } from '../ui.js';

const PAGE = 25;

/** A catalog record as the console edits it: the API's fields, the service's own (uid, dates, version) apart. */
interface CatalogRecord {
  uid: string;
  name: string;
  description: string | null;
  dateModified: string;
  version: number;
  [field: string]: unknown;
}
type Body = Record<string, unknown>;
interface ListQuery {
  limit: number;
  skip: number;
  sort: string;
  name?: string;
}

/**
 * The four kinds of catalog data, each through its own typed routes. The editor sends what the admin
 * wrote as the body: the API validates it as from any client (a 400 names the field).
 */
const KINDS = {
  items: {
    title: 'Items',
    columns: ['cost', 'parentUID'],
    list: (query: ListQuery) => must(api.GET('/items', { params: { query } })),
    find: (id: string) => must(api.GET('/items/{id}', { params: { path: { id } } })),
    create: (body: Body) => must(api.POST('/items', { body: body as never })),
    update: (id: string, version: number, body: Body) =>
      must(api.PUT('/items/{id}', { params: { path: { id }, header: { 'If-Match': `"${version}"` } }, body: body as never })),
    remove: (id: string) => must(api.DELETE('/items/{id}', { params: { path: { id } } })),
    template: { name: '', description: null, cost: 0, stats: [], parentUID: null },
  },
  media: {
    title: 'Media assets',
    columns: ['files'],
    list: (query: ListQuery) => must(api.GET('/assets/media', { params: { query } })),
    find: (id: string) => must(api.GET('/assets/media/{id}', { params: { path: { id } } })),
    create: (body: Body) => must(api.POST('/assets/media', { body: body as never })),
    update: (id: string, version: number, body: Body) =>
      must(api.PUT('/assets/media/{id}', { params: { path: { id }, header: { 'If-Match': `"${version}"` } }, body: body as never })),
    remove: (id: string) => must(api.DELETE('/assets/media/{id}', { params: { path: { id } } })),
    template: { name: '', description: null, files: {} },
  },
  text: {
    title: 'Text assets',
    columns: ['text'],
    list: (query: ListQuery) => must(api.GET('/assets/text', { params: { query } })),
    find: (id: string) => must(api.GET('/assets/text/{id}', { params: { path: { id } } })),
    create: (body: Body) => must(api.POST('/assets/text', { body: body as never })),
    update: (id: string, version: number, body: Body) =>
      must(api.PUT('/assets/text/{id}', { params: { path: { id }, header: { 'If-Match': `"${version}"` } }, body: body as never })),
    remove: (id: string) => must(api.DELETE('/assets/text/{id}', { params: { path: { id } } })),
    template: { name: '', description: null, text: { default: '', en: '' } },
  },
  achievements: {
    title: 'Achievements',
    columns: ['badge'],
    list: (query: ListQuery) => must(api.GET('/achievements', { params: { query } })),
    find: (id: string) => must(api.GET('/achievements/{id}', { params: { path: { id } } })),
    create: (body: Body) => must(api.POST('/achievements', { body: body as never })),
    update: (id: string, version: number, body: Body) =>
      must(api.PUT('/achievements/{id}', { params: { path: { id }, header: { 'If-Match': `"${version}"` } }, body: body as never })),
    remove: (id: string) => must(api.DELETE('/achievements/{id}', { params: { path: { id } } })),
    template: { name: '', description: null, badge: null },
  },
} as const;

type MediaFile = Schema<'MediaFile'>;
type MediaAsset = Schema<'MediaAsset'>;

/**
 * Where the console shows an uploaded file from: the service's own `/media/...` path of its `uri`
 * (the uri starts with MEDIA_BASE_URL, which may be a CDN or another name of the service; the page's
 * CSP allows images from the service itself). A file hosted elsewhere is only linked.
 */
function previewUrl(file: MediaFile): string | null {
  if (file.size === null || !file.mimetype.startsWith('image/')) return null;
  return new URL(file.uri).pathname;
}

function Preview({ file, alt }: { file: MediaFile; alt: string }) {
  const url = previewUrl(file);
  return url ? <img class="preview" src={url} alt={alt} loading="lazy" /> : null;
}

export type CatalogKind = keyof typeof KINDS;
export const isCatalogKind = (kind: string): kind is CatalogKind => kind in KINDS;

const SERVICE_FIELDS = new Set(['uid', 'dateCreated', 'dateModified', 'version', 'ownerUid']);
const editable = (record: Body): Body => Object.fromEntries(Object.entries(record).filter(([key]) => !SERVICE_FIELDS.has(key)));
const pretty = (value: unknown) => JSON.stringify(value, null, 2);

function KindTabs({ current }: { current: CatalogKind }) {
  return (
    <nav aria-label="Catalog kinds">
      <ul>
        {(Object.keys(KINDS) as CatalogKind[]).map((kind) => (
          <li key={kind}>
            <Link to={`/catalog/${kind}`} aria-current={kind === current ? 'page' : undefined}>
              {KINDS[kind].title}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function cell(kind: CatalogKind, column: string, record: CatalogRecord, languages: string[]) {
  const value = record[column];
  if (kind === 'text' && column === 'text') {
    const text = value as Record<string, string>;
    return languages.map((language) => <td key={language}>{text[language] ?? '–'}</td>);
  }
  if (kind === 'media' && column === 'files') {
    const files = value as Record<string, MediaFile>;
    const shown = files.thumbnail ?? files.default;
    return (
      <td key={column}>
        {shown && <Preview file={shown} alt="" />} {Object.keys(files).join(', ') || '–'}
      </td>
    );
  }
  return <td key={column}>{value === null || value === undefined ? '–' : typeof value === 'string' ? value : JSON.stringify(value)}</td>;
}

export function CatalogList({ kind, query }: { kind: CatalogKind; query: URLSearchParams }) {
  const skip = Number(query.get('skip') ?? 0);
  const sort = query.get('sort') ?? 'name';
  const name = query.get('name') ?? '';
  const [draft, setDraft] = useState(name);
  const definition = KINDS[kind];
  const list = useQuery({
    queryKey: ['catalog', kind, skip, sort, name],
    queryFn: () => definition.list({ limit: PAGE, skip, sort, ...(name ? { name: `like(${name})` } : {}) }) as Promise<CatalogRecord[]>,
  });
  const go = (next: { skip?: number; sort?: string; name?: string }) => {
    const params = new URLSearchParams({
      sort: next.sort ?? sort,
      ...((next.name ?? name) ? { name: next.name ?? name } : {}),
      skip: String(next.skip ?? 0),
    });
    navigate(`/catalog/${kind}?${params.toString()}`);
  };
  return (
    <section>
      <h1>Catalog</h1>
      <KindTabs current={kind} />
      <h2>{definition.title}</h2>
      <form role="search" onSubmit={(event) => (event.preventDefault(), go({ name: draft }))}>
        <div class="grid">
          <label>
            Name contains
            <input maxLength={1000} value={draft} onInput={(event) => setDraft(event.currentTarget.value)} />
          </label>
          <label>
            Sort by
            <select value={sort} onChange={(event) => go({ sort: event.currentTarget.value })}>
              <option value="name">Name</option>
              <option value='{"dateModified":"DESC"}'>Last changed</option>
              <option value='{"dateCreated":"DESC"}'>Newest</option>
              {kind === 'items' && <option value='{"cost":"DESC"}'>Cost, highest first</option>}
            </select>
          </label>
        </div>
        <button type="submit" class="secondary">
          Filter
        </button>{' '}
        <Link to={`/catalog/${kind}/new`} role="button">
          New
        </Link>
      </form>
      <Loaded query={list} empty={(rows) => rows.length === 0 && skip === 0}>
        {(rows) => {
          const languages = kind === 'text' ? [...new Set(rows.flatMap((row) => Object.keys(row.text as object)))].sort() : [];
          const columns = definition.columns.flatMap((column) =>
            kind === 'text' && column === 'text' ? languages.map((language) => `Text (${language})`) : [column],
          );
          return (
            <>
              <Table caption={definition.title} head={['Name', ...columns, 'Changed']}>
                {rows.map((row) => (
                  <tr key={row.uid}>
                    <td>
                      <Link to={`/catalog/${kind}/${row.uid}`}>{row.name}</Link>
                    </td>
                    {definition.columns.map((column) => cell(kind, column, row, languages))}
                    <td>
                      <Time value={row.dateModified} />
                    </td>
                  </tr>
                ))}
              </Table>
              <Pager
                onNewer={skip > 0 ? () => go({ skip: Math.max(0, skip - PAGE) }) : undefined}
                onOlder={rows.length === PAGE ? () => go({ skip: skip + PAGE }) : undefined}
              />
            </>
          );
        }}
      </Loaded>
    </section>
  );
}

/** Creating (uid `new`) or editing one record, with optimistic locking: a conflict shows both versions. */
export function CatalogRecordPage({ kind, uid }: { kind: CatalogKind; uid: string }) {
  const definition = KINDS[kind];
  const creating = uid === 'new';
  const record = useQuery({
    queryKey: ['catalog-record', kind, uid],
    queryFn: () => (creating ? Promise.resolve(null) : (definition.find(uid) as Promise<CatalogRecord>)),
  });
  return (
    <section>
      <p>
        <Link to={`/catalog/${kind}`}>← {definition.title}</Link>
      </p>
      <Loaded query={record}>
        {(loaded) => (
          <>
            <Editor key={loaded?.version ?? 'new'} kind={kind} record={loaded} />
            {kind === 'media' && loaded && <MediaFiles asset={loaded as unknown as MediaAsset} />}
          </>
        )}
      </Loaded>
    </section>
  );
}

function Editor({ kind, record }: { kind: CatalogKind; record: CatalogRecord | null }) {
  const definition = KINDS[kind];
  const client = useQueryClient();
  const [text, setText] = useState(pretty(record ? editable(record) : definition.template));
  const [version, setVersion] = useState(record?.version ?? 0);
  const [conflict, setConflict] = useState<CatalogRecord | null>(null);
  const [confirmDelete, setConfirmDelete] = useState(false);

  const save = useMutation({
    mutationFn: async (atVersion: number) => {
      let body: Body;
      try {
        body = JSON.parse(text) as Body;
      } catch {
        throw new Error('The record is not valid JSON.');
      }
      return record ? definition.update(record.uid, atVersion, body) : definition.create(body);
    },
    onSuccess: (saved) => {
      setConflict(null);
      client.setQueryData(['catalog-record', kind, saved.uid], saved);
      void client.invalidateQueries({ queryKey: ['catalog', kind] });
      if (!record) navigate(`/catalog/${kind}/${saved.uid}`, true);
      else setVersion(saved.version);
    },
    onError: async (error) => {
      if (error instanceof ApiError && error.code === 'VERSION_CONFLICT' && record) setConflict(await definition.find(record.uid));
    },
  });
  const remove = useMutation({
    mutationFn: () => definition.remove(record!.uid) as Promise<unknown>,
    onSuccess: () => (void client.invalidateQueries({ queryKey: ['catalog', kind] }), navigate(`/catalog/${kind}`)),
  });

  return (
    <>
      <h1>{record ? `${record.name}` : `New: ${definition.title.toLowerCase()}`}</h1>
      {record && (
        <p>
          <code>{record.uid}</code> · version {version}
        </p>
      )}
      <form onSubmit={(event) => (event.preventDefault(), save.mutate(version))}>
        <label>
          Record (JSON)
          <textarea class="json" rows={14} spellcheck={false} value={text} onInput={(event) => setText(event.currentTarget.value)} />
        </label>
        <button type="submit" aria-busy={save.isPending}>
          {record ? 'Save' : 'Create'}
        </button>{' '}
        {record && (
          <button type="button" class="contrast" onClick={() => setConfirmDelete(true)}>
            Delete
          </button>
        )}
      </form>
      {save.error && !conflict && <ErrorNote error={save.error} />}
      {remove.error && <ErrorNote error={remove.error} />}
      {conflict && (
        <Conflict
          title={`Someone else saved this record (now version ${conflict.version}) while you edited it`}
          mine={text}
          theirs={pretty(editable(conflict))}
          keepLabel={`Keep mine (save over version ${conflict.version})`}
          onKeep={() => (setVersion(conflict.version), setConflict(null), save.mutate(conflict.version))}
          onTake={() => (
            setText(pretty(editable(conflict))),
            setVersion(conflict.version),
            setConflict(null),
            client.setQueryData(['catalog-record', kind, conflict.uid], conflict)
          )}
        />
      )}
      <Confirm
        open={confirmDelete}
        title={`Delete ${record?.name ?? ''}?`}
        confirmLabel="Delete"
        onConfirm={() => (setConfirmDelete(false), remove.mutate())}
        onCancel={() => setConfirmDelete(false)}
      >
        <p>The record is removed from the catalog for every player.</p>
      </Confirm>
    </>
  );
}

/** `sha-256=:<base64>:` of the bytes (RFC 9530), so that the service refuses a file damaged on the way; absent outside a secure context. */
async function contentDigest(file: File): Promise<Record<string, string>> {
  if (!crypto.subtle) return {};
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', await file.arrayBuffer()));
  return { 'Content-Digest': `sha-256=:${btoa(String.fromCharCode(...digest))}:` };
}

/** A media asset's variants, uploaded files shown, and an upload of a file for a variant (new or replaced). */
function MediaFiles({ asset }: { asset: MediaAsset }) {
  const client = useQueryClient();
  const [status, announce] = useAnnouncer();
  const [variant, setVariant] = useState('default');
  const [file, setFile] = useState<File | null>(null);
  const upload = useMutation({
    mutationFn: async () => {
      if (!file) throw new Error('Choose a file to upload.');
      return must(
        api.PUT('/assets/media/{id}/files/{variant}', {
          params: {
            path: { id: asset.uid, variant },
            query: { name: file.name },
            header: { 'If-Match': `"${asset.version}"`, ...(await contentDigest(file)) },
          },
          headers: { 'Content-Type': file.type || 'application/octet-stream' },
          body: file as never,
          bodySerializer: (body: unknown) => body as BodyInit,
        }),
      );
    },
    onSuccess: (saved) => {
      announce(`Uploaded ${file?.name ?? 'the file'} as ${variant}.`);
      client.setQueryData(['catalog-record', 'media', saved.uid], saved);
      void client.invalidateQueries({ queryKey: ['catalog', 'media'] });
    },
    onError: (error) => {
      if (error instanceof ApiError && error.code === 'VERSION_CONFLICT')
        void client.invalidateQueries({ queryKey: ['catalog-record', 'media', asset.uid] });
    },
  });
  const variants = Object.entries(asset.files);
  return (
    <section aria-labelledby="files-title">
      <h2 id="files-title">Files</h2>
      {variants.length === 0 ? (
        <p class="empty">No file yet.</p>
      ) : (
        <Table caption="Files by variant" head={['Variant', 'File', 'Type', 'Bytes', '']}>
          {variants.map(([key, entry]) => (
            <tr key={key}>
              <td>{key}</td>
              <td>
                <a href={previewUrl(entry) ?? entry.uri}>{entry.name}</a>
              </td>
              <td>{entry.mimetype}</td>
              <td>{entry.size ?? 'hosted elsewhere'}</td>
              <td>
                <Preview file={entry} alt={`${key}: ${entry.name}`} />
              </td>
            </tr>
          ))}
        </Table>
      )}
      <form onSubmit={(event) => (event.preventDefault(), upload.mutate())}>
        <div class="grid">
          <label>
            Variant
            <input
              required
              maxLength={64}
              pattern="[A-Za-z0-9_.\-]+"
              value={variant}
              onInput={(event) => setVariant(event.currentTarget.value)}
            />
          </label>
          <label>
            File
            <input type="file" required onChange={(event) => setFile(event.currentTarget.files?.[0] ?? null)} />
          </label>
        </div>
        <button type="submit" aria-busy={upload.isPending}>
          Upload
        </button>
      </form>
      {upload.error && <ErrorNote error={upload.error} />}
      {status}
    </section>
  );
}
