import { useQuery } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { api, must } from '../api.js';
import { navigate } from '../router.js';
import { Link, Loaded, Pager, Table, Time } from '../ui.js';

const PAGE = 50;
const FILTERS = ['action', 'actorUid', 'targetUid', 'since', 'until'] as const;

/** Every admin write through the API (GET /admin/audit), filterable; pages back by id. */
export function Audit({ query }: { query: URLSearchParams }) {
  const filters = Object.fromEntries(FILTERS.flatMap((name) => (query.get(name) ? [[name, query.get(name)!]] : []))) as Partial<
    Record<(typeof FILTERS)[number], string>
  >;
  const before = query.get('before') ?? undefined;
  const [draft, setDraft] = useState(filters);
  const [history, setHistory] = useState<Array<string | undefined>>([]);
  const entries = useQuery({
    queryKey: ['audit', filters, before],
    queryFn: () => must(api.GET('/admin/audit', { params: { query: { ...filters, limit: PAGE, ...(before ? { before } : {}) } } })),
  });
  const go = (next: Record<string, string | undefined>) =>
    navigate(
      `/audit?${new URLSearchParams(Object.entries(next).filter((entry): entry is [string, string] => Boolean(entry[1]))).toString()}`,
    );
  const labels = {
    action: 'Action contains',
    actorUid: 'Admin uid',
    targetUid: 'Record uid',
    since: 'Since (date)',
    until: 'Until (date)',
  };
  return (
    <section>
      <h1>Admin audit</h1>
      <form onSubmit={(event) => (event.preventDefault(), setHistory([]), go(draft))}>
        <div class="grid filters">
          {FILTERS.map((name) => (
            <label key={name}>
              {labels[name]}
              <input
                type={name === 'since' || name === 'until' ? 'date' : 'text'}
                value={draft[name] ?? ''}
                onInput={(event) => setDraft({ ...draft, [name]: event.currentTarget.value || undefined })}
              />
            </label>
          ))}
        </div>
        <button type="submit" class="secondary">
          Filter
        </button>
      </form>
      <Loaded query={entries} empty={(rows) => rows.length === 0 && !before}>
        {(rows) => (
          <>
            <Table caption="Admin writes, newest first" head={['When', 'Admin', 'Action', 'Record', 'Status', 'Reason']}>
              {rows.map((entry) => (
                <tr key={entry.id}>
                  <td>
                    <Link to={`/audit/${entry.id}`}>
                      <Time value={entry.dateCreated} />
                    </Link>
                  </td>
                  <td>{entry.actor}</td>
                  <td>
                    <code>{entry.action}</code>
                  </td>
                  <td>{entry.targetUid ? <code>{entry.targetUid.slice(0, 8)}</code> : '–'}</td>
                  <td>{entry.status}</td>
                  <td>{entry.reason ?? '–'}</td>
                </tr>
              ))}
            </Table>
            <Pager
              onNewer={
                history.length > 0
                  ? () => (go({ ...filters, before: history[history.length - 1] }), setHistory(history.slice(0, -1)))
                  : undefined
              }
              onOlder={
                rows.length === PAGE
                  ? () => (setHistory([...history, before]), go({ ...filters, before: rows[rows.length - 1].id }))
                  : undefined
              }
            />
          </>
        )}
      </Loaded>
    </section>
  );
}

export function AuditEntryPage({ id }: { id: string }) {
  const entry = useQuery({
    queryKey: ['audit-entry', id],
    queryFn: () => must(api.GET('/admin/audit/{id}', { params: { path: { id } } })),
  });
  return (
    <section>
      <p>
        <Link to="/audit">← Admin audit</Link>
      </p>
      <h1>Admin write {id}</h1>
      <Loaded query={entry}>
        {(row) => (
          <>
            <dl class="facts">
              <dt>When</dt>
              <dd>
                <Time value={row.dateCreated} />
              </dd>
              <dt>Admin</dt>
              <dd>
                <Link to={`/players/${row.actorUid}`}>{row.actor}</Link>
              </dd>
              <dt>Action</dt>
              <dd>
                <code>{row.action}</code> {row.path} → {row.status}
              </dd>
              <dt>Reason</dt>
              <dd>{row.reason ?? '–'}</dd>
              <dt>Request id, address</dt>
              <dd>
                {row.requestId}, {row.address}
              </dd>
            </dl>
            <h2>Request</h2>
            <pre>{JSON.stringify(row.request, null, 2)}</pre>
            <div class="grid">
              <div>
                <h2>Before</h2>
                <pre>{JSON.stringify(row.before, null, 2)}</pre>
              </div>
              <div>
                <h2>After</h2>
                <pre>{JSON.stringify(row.after, null, 2)}</pre>
              </div>
            </div>
          </>
        )}
      </Loaded>
    </section>
  );
}
