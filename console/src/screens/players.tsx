import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { api, must, mustAnswer, type Schema } from '../api.js';
import { navigate } from '../router.js';
import { Confirm, ErrorNote, Link, Loaded, Pager, Table, Time, useAnnouncer, useCursorPages } from '../ui.js';
import { score } from './leaderboards.js';
import { Collections } from './storage.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PAGE = 25;

type Account = Schema<'UserAccountDto'>;

/** Who the search finds: a uid opens the player, a subject or a persona name lists candidates. */
async function search(kind: string, text: string, skip: number): Promise<Array<{ uid: string; label: string; detail: string }>> {
  if (kind === 'persona') {
    const personas = await must(api.GET('/personas', { params: { query: { name: `like(${text})`, limit: PAGE, skip, sort: 'name' } } }));
    return personas.map((persona) => ({ uid: persona.userUid, label: persona.name, detail: `persona ${persona.uid}` }));
  }
  const users = await must(
    api.GET('/users', { params: { query: { subject: kind === 'subject' ? text : `like(${text})`, limit: PAGE, skip } } }),
  );
  return users.map((user) => ({
    uid: user.uid,
    label: `${user.provider}:${user.subject}`,
    detail: user.banned ? 'banned' : (user.name ?? ''),
  }));
}

export function Players({ query }: { query: URLSearchParams }) {
  const kind = query.get('by') ?? 'subject';
  const text = query.get('q') ?? '';
  const skip = Number(query.get('skip') ?? 0);
  const [draft, setDraft] = useState({ kind, text });
  const results = useQuery({ queryKey: ['players', kind, text, skip], queryFn: () => search(kind, text, skip), enabled: text !== '' });
  const go = (next: { kind: string; text: string; skip?: number }) => {
    const value = next.text.trim();
    if (next.kind === 'uid' && UUID.test(value)) return navigate(`/players/${value.toLowerCase()}`);
    navigate(`/players?by=${next.kind}&q=${encodeURIComponent(value)}${next.skip ? `&skip=${next.skip}` : ''}`);
  };
  return (
    <section>
      <h1>Players</h1>
      <form role="search" onSubmit={(event) => (event.preventDefault(), go(draft))}>
        <fieldset role="group">
          <label class="visually-hidden" for="search-kind">
            Search by
          </label>
          <select id="search-kind" value={draft.kind} onChange={(event) => setDraft({ ...draft, kind: event.currentTarget.value })}>
            <option value="subject">Provider subject</option>
            <option value="subject-part">Subject containing</option>
            <option value="persona">Persona name containing</option>
            <option value="uid">User uid</option>
          </select>
          <label class="visually-hidden" for="search-text">
            Search text
          </label>
          <input
            id="search-text"
            required
            maxLength={1000}
            value={draft.text}
            onInput={(event) => setDraft({ ...draft, text: event.currentTarget.value })}
          />
          <button type="submit">Search</button>
        </fieldset>
      </form>
      {text === '' ? (
        <p class="empty">Search a player by the subject their identity provider gave them, a persona name, or their uid.</p>
      ) : (
        <Loaded query={results} empty={(rows) => rows.length === 0 && skip === 0}>
          {(rows) => (
            <>
              <Table caption="Players found" head={['Player', 'Detail']}>
                {rows.map((row) => (
                  <tr key={`${row.uid}${row.detail}`}>
                    <td>
                      <Link to={`/players/${row.uid}`}>{row.label}</Link>
                    </td>
                    <td>{row.detail}</td>
                  </tr>
                ))}
              </Table>
              <Pager
                onNewer={skip > 0 ? () => go({ kind, text, skip: Math.max(0, skip - PAGE) }) : undefined}
                onOlder={rows.length === PAGE ? () => go({ kind, text, skip: skip + PAGE }) : undefined}
              />
            </>
          )}
        </Loaded>
      )}
    </section>
  );
}

export function PlayerPage({ uid }: { uid: string }) {
  const user = useQuery({ queryKey: ['user', uid], queryFn: () => must(api.GET('/users/{id}', { params: { path: { id: uid } } })) });
  return (
    <section>
      <p>
        <Link to="/players">← Players</Link>
      </p>
      <Loaded query={user}>
        {(account) => (
          <>
            <h1>
              {account.name ?? account.subject} {account.banned && <mark>banned</mark>}
            </h1>
            <Identity account={account} />
            <Identities account={account} />
            <Ban account={account} />
            <Sessions account={account} />
          </>
        )}
      </Loaded>
      {/* Asked at once with the account, not after it: the page's time is its slowest chain of reads. */}
      <Personas uid={uid} />
      <LeaderboardRecords uid={uid} />
      <Storage uid={uid} />
      <Unlocks uid={uid} />
      <SignIns uid={uid} />
    </section>
  );
}

function Identity({ account }: { account: Account }) {
  return (
    <dl class="facts" aria-label="Identity">
      <dt>User uid</dt>
      <dd>
        <code>{account.uid}</code>
      </dd>
      <dt>Identity</dt>
      <dd>
        {account.provider}:{account.subject}
      </dd>
      <dt>Email</dt>
      <dd>{account.email ?? '–'}</dd>
      <dt>Since</dt>
      <dd>
        <Time value={account.dateCreated} />
      </dd>
      {account.banned && (
        <>
          <dt>Banned</dt>
          <dd>
            <Time value={account.bannedAt} /> until {account.bannedUntil ? <Time value={account.bannedUntil} /> : 'unbanned'}:{' '}
            {account.banReason}
          </dd>
        </>
      )}
    </dl>
  );
}

/** Every way into the account (devices are one identity of provider `device`); an admin unlinks one, never the last. */
function Identities({ account }: { account: Account }) {
  const client = useQueryClient();
  const [status, announce] = useAnnouncer();
  const [doomed, setDoomed] = useState<Account['identities'][number] | null>(null);
  const [reason, setReason] = useState('');
  const unlink = useMutation({
    mutationFn: (provider: Account['provider']) =>
      must(
        api.DELETE('/users/{id}/identities/{provider}', {
          params: { path: { id: account.uid, provider }, header: reason ? { 'X-Audit-Reason': reason } : {} },
        }),
      ),
    onSuccess: (updated, provider) => {
      setDoomed(null);
      setReason('');
      client.setQueryData(['user', account.uid], updated);
      announce(`Unlinked ${provider}.`);
    },
    onError: () => setDoomed(null),
  });
  return (
    <section aria-labelledby="identities-title">
      <h2 id="identities-title">Linked identities</h2>
      <Table caption="Identities of the account" head={['Provider', 'Subject', 'Linked', '']}>
        {account.identities.map((identity) => (
          <tr key={identity.provider}>
            <td>{identity.provider === 'device' ? 'device (every device id)' : identity.provider}</td>
            <td>{identity.subject ?? '–'}</td>
            <td>
              <Time value={identity.dateCreated} />
            </td>
            <td>
              <button type="button" class="secondary" disabled={account.identities.length < 2} onClick={() => setDoomed(identity)}>
                Unlink<span class="visually-hidden"> {identity.provider}</span>
              </button>
            </td>
          </tr>
        ))}
      </Table>
      {unlink.error && <ErrorNote error={unlink.error} />}
      {status}
      <Confirm
        open={doomed !== null}
        title={`Unlink ${doomed?.provider ?? ''}?`}
        confirmLabel="Unlink"
        onConfirm={() => doomed && unlink.mutate(doomed.provider)}
        onCancel={() => setDoomed(null)}
        reason={[reason, setReason]}
      >
        <p>That identity no longer signs in to this account, and the sessions it opened end.</p>
      </Confirm>
    </section>
  );
}

function Ban({ account }: { account: Account }) {
  const client = useQueryClient();
  const [status, announce] = useAnnouncer();
  const [reason, setReason] = useState('');
  const [days, setDays] = useState('');
  const done = (text: string) => (updated: Account) => {
    client.setQueryData(['user', account.uid], updated);
    announce(text);
  };
  const ban = useMutation({
    mutationFn: () =>
      must(
        api.POST('/users/{id}/ban', {
          params: { path: { id: account.uid }, header: { 'X-Audit-Reason': reason } },
          body: { reason, ...(days ? { until: new Date(Date.now() + Number(days) * 86_400_000).toISOString() } : {}) },
        }),
      ),
    onSuccess: done('Banned.'),
  });
  const unban = useMutation({
    mutationFn: () => must(api.POST('/users/{id}/unban', { params: { path: { id: account.uid } } })),
    onSuccess: done('Unbanned.'),
  });
  return (
    <section aria-labelledby="ban-title">
      <h2 id="ban-title">Ban</h2>
      {account.banned ? (
        <button type="button" onClick={() => unban.mutate()} aria-busy={unban.isPending}>
          Unban
        </button>
      ) : (
        <form onSubmit={(event) => (event.preventDefault(), ban.mutate())}>
          <div class="grid">
            <label>
              Reason
              <input required maxLength={500} value={reason} onInput={(event) => setReason(event.currentTarget.value)} />
            </label>
            <label>
              Days (empty: until unbanned)
              <input type="number" min={1} max={36500} value={days} onInput={(event) => setDays(event.currentTarget.value)} />
            </label>
          </div>
          <button type="submit" class="contrast" aria-busy={ban.isPending}>
            Ban
          </button>
        </form>
      )}
      {(ban.error ?? unban.error) && <ErrorNote error={ban.error ?? unban.error} />}
      {status}
    </section>
  );
}

function Sessions({ account }: { account: Account }) {
  const client = useQueryClient();
  const [confirmAll, setConfirmAll] = useState(false);
  const refresh = () => client.invalidateQueries({ queryKey: ['user', account.uid] });
  const revokeOne = useMutation({
    mutationFn: (id: string) => must(api.DELETE('/auth/sessions/{id}', { params: { path: { id } } })),
    onSuccess: refresh,
  });
  const revokeAll = useMutation({
    mutationFn: () => must(api.DELETE('/users/{id}/sessions', { params: { path: { id: account.uid } } })),
    onSuccess: () => (setConfirmAll(false), refresh()),
  });
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Player sessions</h2>
      {account.sessions.length === 0 ? (
        <p class="empty">No active session.</p>
      ) : (
        <>
          <Table caption="Active player sessions" head={['Opened', 'Last refreshed', 'Address', 'Client', '']}>
            {account.sessions.map((session) => (
              <tr key={session.uid}>
                <td>
                  <Time value={session.dateCreated} />
                </td>
                <td>
                  <Time value={session.lastRefreshedAt} />
                </td>
                <td>{session.address ?? '–'}</td>
                <td>{session.userAgent ?? '–'}</td>
                <td>
                  <button type="button" class="secondary" onClick={() => revokeOne.mutate(session.uid)}>
                    Revoke
                  </button>
                </td>
              </tr>
            ))}
          </Table>
          <button type="button" class="contrast" onClick={() => setConfirmAll(true)}>
            Revoke all sessions
          </button>
        </>
      )}
      {(revokeOne.error ?? revokeAll.error) && <ErrorNote error={revokeOne.error ?? revokeAll.error} />}
      <Confirm
        open={confirmAll}
        title="Sign this player out everywhere?"
        confirmLabel="Revoke all"
        onConfirm={() => revokeAll.mutate()}
        onCancel={() => setConfirmAll(false)}
      >
        <p>Every session ends at once; the player may sign in again (a ban keeps them out).</p>
      </Confirm>
    </section>
  );
}

function Personas({ uid }: { uid: string }) {
  const personas = useQuery({
    queryKey: ['personas', uid],
    queryFn: () => must(api.GET('/personas', { params: { query: { userUid: uid, limit: 100 } } })),
  });
  return (
    <section aria-labelledby="personas-title">
      <h2 id="personas-title">Personas, inventory and ledger</h2>
      <Loaded query={personas} empty={(rows) => rows.length === 0}>
        {(rows) => rows.map((persona) => <Persona key={persona.uid} persona={persona} />)}
      </Loaded>
    </section>
  );
}

function Persona({ persona }: { persona: Schema<'Persona'> }) {
  const { cursor, pager } = useCursorPages<Schema<'LedgerEntryDto'>>(20, (row) => row.sequence);
  const inventory = useQuery({
    queryKey: ['inventory', persona.uid],
    queryFn: () => must(api.GET('/inventories', { params: { query: { personaUid: persona.uid, limit: 100 } } })),
  });
  const ledger = useQuery({
    queryKey: ['ledger', persona.uid, cursor],
    queryFn: () =>
      must(
        api.GET('/inventories/ledger', {
          params: { query: { personaUid: persona.uid, limit: 20, ...(cursor ? { before: cursor } : {}) } },
        }),
      ),
  });
  return (
    <article>
      <header>
        <h3>{persona.name}</h3>
        <code>{persona.uid}</code> · <Link to={`/economy?persona=${persona.uid}`}>Award or remove items</Link>
      </header>
      <Loaded query={inventory} empty={(rows) => rows.length === 0}>
        {(rows) => (
          <Table caption={`Inventory of ${persona.name}`} head={['Item', 'Quantity']}>
            {rows.map((row) => (
              <tr key={row.uid}>
                <td>
                  <Link to={`/catalog/items/${row.itemUid}`}>{row.itemUid}</Link>
                </td>
                <td>{row.quantity}</td>
              </tr>
            ))}
          </Table>
        )}
      </Loaded>
      <h4>Ledger</h4>
      <Loaded query={ledger} empty={(rows) => rows.length === 0 && !cursor}>
        {(rows) => (
          <>
            <Table caption={`Ledger of ${persona.name}`} head={['When', 'Item', 'Change', 'Transaction']}>
              {rows.map((row) => (
                <tr key={row.sequence}>
                  <td>
                    <Time value={row.dateCreated} />
                  </td>
                  <td>{row.itemUid}</td>
                  <td>{row.delta > 0 ? `+${row.delta}` : row.delta}</td>
                  <td>
                    <Link to={`/economy/transactions/${row.transactionUid}`}>detail</Link>
                  </td>
                </tr>
              ))}
            </Table>
            {pager(rows, 'Ledger pages')}
          </>
        )}
      </Loaded>
    </article>
  );
}

function Storage({ uid }: { uid: string }) {
  return (
    <section aria-labelledby="storage-title">
      <h2 id="storage-title">Storage objects</h2>
      <p>
        <Link to={`/storage?owner=${uid}`}>Open in the storage browser</Link>
      </p>
      <Collections owner={uid} limit={10} />
    </section>
  );
}

/** Boards one page of a persona's leaderboard records holds. */
const BOARDS_PAGE = 20;

/** The personas' records in the current period of every board they have one there (one request per persona and page). */
function LeaderboardRecords({ uid }: { uid: string }) {
  const personas = useQuery({
    queryKey: ['personas', uid],
    queryFn: () => must(api.GET('/personas', { params: { query: { userUid: uid, limit: 100 } } })),
  });
  return (
    <section aria-labelledby="leaderboard-records-title">
      <h2 id="leaderboard-records-title">Leaderboard records</h2>
      <p>Each persona&apos;s record in the current period of every board it has one there, boards by name.</p>
      <Loaded query={personas} empty={(rows) => rows.length === 0}>
        {(rows) => (
          <>
            {rows.map((persona) => (
              <PersonaBoardRecords key={persona.uid} persona={persona} />
            ))}
          </>
        )}
      </Loaded>
    </section>
  );
}

function PersonaBoardRecords({ persona }: { persona: { uid: string; name: string } }) {
  const [skips, setSkips] = useState<number[]>([0]);
  const skip = skips.at(-1)!;
  const records = useQuery({
    queryKey: ['persona-leaderboard-records', persona.uid, skip],
    queryFn: async () => {
      const { data, response } = await mustAnswer(
        api.GET('/personas/{personaUid}/leaderboard-records', {
          params: { path: { personaUid: persona.uid }, query: { limit: BOARDS_PAGE, skip } },
        }),
      );
      return { rows: data, next: response.headers.get('X-Next-Skip') };
    },
  });
  const caption = `Leaderboard records of ${persona.name}`;
  return (
    <>
      <h3>{persona.name}</h3>
      <Loaded query={records} empty={({ rows, next }) => rows.length === 0 && next === null && skip === 0}>
        {({ rows, next }) => (
          <>
            <Table caption={caption} head={['Board', 'Rank', 'Of', 'Score', 'Attempts', 'Period']}>
              {rows.map((record) => (
                <tr key={record.uid}>
                  <td>
                    <Link to={`/leaderboards/${record.leaderboardUid}?period=${record.periodUid}`}>{record.leaderboardName}</Link>
                  </td>
                  <td>{record.rank ?? '–'}</td>
                  <td>{record.rankCount}</td>
                  <td>{score(record.score)}</td>
                  <td>{record.numScore}</td>
                  <td>{record.periodStatus}</td>
                </tr>
              ))}
            </Table>
            <Pager
              label={`Pages of ${caption}`}
              names={['Previous boards', 'Next boards']}
              onNewer={skips.length > 1 ? () => setSkips(skips.slice(0, -1)) : undefined}
              onOlder={next !== null ? () => setSkips([...skips, Number(next)]) : undefined}
            />
          </>
        )}
      </Loaded>
    </>
  );
}

function Unlocks({ uid }: { uid: string }) {
  const unlocks = useQuery({
    queryKey: ['unlocks', uid],
    queryFn: () => must(api.GET('/users/{id}/unlocks', { params: { path: { id: uid }, query: { limit: 100 } } })),
  });
  return (
    <section aria-labelledby="unlocks-title">
      <h2 id="unlocks-title">Achievements</h2>
      <Loaded query={unlocks} empty={(rows) => rows.length === 0}>
        {(rows) => (
          <Table caption="Achievements unlocked" head={['Achievement', 'Unlocked']}>
            {rows.map((row) => (
              <tr key={row.uid}>
                <td>
                  <Link to={`/catalog/achievements/${row.achievementUid}`}>{row.achievementUid}</Link>
                </td>
                <td>
                  <Time value={row.dateCreated} />
                </td>
              </tr>
            ))}
          </Table>
        )}
      </Loaded>
    </section>
  );
}

function SignIns({ uid }: { uid: string }) {
  const { cursor, pager } = useCursorPages<Schema<'AuditEntryDto'>>(20, (row) => row.id);
  const audit = useQuery({
    queryKey: ['sign-ins', uid, cursor],
    queryFn: () =>
      must(api.GET('/users/{id}/audit', { params: { path: { id: uid }, query: { limit: 20, ...(cursor ? { before: cursor } : {}) } } })),
  });
  return (
    <section aria-labelledby="sign-ins-title">
      <h2 id="sign-ins-title">Sign-in audit</h2>
      <Loaded query={audit} empty={(rows) => rows.length === 0 && !cursor}>
        {(rows) => (
          <>
            <Table caption="Sign-in audit entries" head={['When', 'Event', 'Outcome', 'Address']}>
              {rows.map((row) => (
                <tr key={row.id}>
                  <td>
                    <Time value={row.dateCreated} />
                  </td>
                  <td>{row.event}</td>
                  <td>{row.outcome}</td>
                  <td>{row.address ?? '–'}</td>
                </tr>
              ))}
            </Table>
            {pager(rows, 'Sign-in audit pages')}
          </>
        )}
      </Loaded>
    </section>
  );
}
