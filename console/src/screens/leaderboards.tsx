import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { api, must, mustAnswer, type Schema } from '../api.js';
import { navigate } from '../router.js';
import { Confirm, ErrorNote, Link, Loaded, Pager, Table, Time, useAnnouncer, useNextCursors } from '../ui.js';

const PAGE = 25;

type Board = Schema<'Leaderboard'>;
type RankedRecord = Schema<'LeaderboardRecordView'>;
type Prize = Schema<'LeaderboardPayoutView'>;

/** A score as the API sends it: a JSON number, or a string of digits past 2^53. */
export const score = (value: unknown) => (typeof value === 'number' || typeof value === 'string' ? String(value) : '–');

function kindOf(board: Board): string {
  if (board.startAt || board.endAt || board.duration || board.maxSize || board.maxNumScore || board.joinRequired || board.rewards.length)
    return 'Tournament';
  return 'Leaderboard';
}

export function Leaderboards({ query }: { query: URLSearchParams }) {
  const skip = Number(query.get('skip') ?? 0);
  const boards = useQuery({
    queryKey: ['leaderboards', skip],
    queryFn: () => must(api.GET('/leaderboards', { params: { query: { limit: PAGE, skip, sort: 'name' } } })),
  });
  return (
    <section>
      <h1>Leaderboards and tournaments</h1>
      <Loaded query={boards} empty={(rows) => rows.length === 0 && skip === 0}>
        {(rows) => (
          <>
            <Table caption="Leaderboards and tournaments" head={['Name', 'Kind', 'Order', 'Operator', 'Resets', 'Rewards']}>
              {rows.map((board) => (
                <tr key={board.uid}>
                  <td>
                    <Link to={`/leaderboards/${board.uid}`}>{board.name}</Link>
                  </td>
                  <td>{kindOf(board)}</td>
                  <td>{board.sortOrder}</td>
                  <td>{board.operator}</td>
                  <td>{board.resetSchedule ?? (board.duration ? `every ${board.duration} s` : 'never')}</td>
                  <td>{board.rewards.length ? `${board.rewards.length} tiers` : '–'}</td>
                </tr>
              ))}
            </Table>
            <Pager
              names={['Previous', 'Next']}
              onNewer={skip > 0 ? () => navigate(`/leaderboards?skip=${Math.max(0, skip - PAGE)}`) : undefined}
              onOlder={rows.length === PAGE ? () => navigate(`/leaderboards?skip=${skip + PAGE}`) : undefined}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}

/** A board: its settings and prizes, its periods, and a period's ranked records (`?period=<uid>`, else the current one). */
export function LeaderboardPage({ uid, query }: { uid: string; query: URLSearchParams }) {
  const period = query.get('period') ?? 'current';
  const board = useQuery({
    queryKey: ['leaderboard', uid],
    queryFn: () => must(api.GET('/leaderboards/{id}', { params: { path: { id: uid } } })),
  });
  return (
    <section>
      <p>
        <Link to="/leaderboards">← Leaderboards</Link>
      </p>
      <Loaded query={board}>
        {(loaded) => (
          <>
            <h1>{loaded.name}</h1>
            <Settings board={loaded} />
            <Reset board={loaded} />
            <Rewards board={loaded} />
          </>
        )}
      </Loaded>
      <Periods uid={uid} current={period} seats={board.data?.maxSize} />
      <Records key={period} uid={uid} period={period} />
      {/^[0-9a-f-]{36}$/i.test(period) && <Prizes key={period} uid={uid} period={period} />}
    </section>
  );
}

function Settings({ board }: { board: Board }) {
  return (
    <dl class="facts" aria-label="Settings">
      <dt>Uid</dt>
      <dd>
        <code>{board.uid}</code>
      </dd>
      <dt>Kind</dt>
      <dd>{kindOf(board)}</dd>
      <dt>Scores</dt>
      <dd>
        {board.sortOrder}, {board.operator}
        {board.authoritative ? ', written by admins only' : ''}
        {board.minScore !== null || board.maxScore !== null ? `, from ${score(board.minScore)} to ${score(board.maxScore)}` : ''}
      </dd>
      <dt>Periods</dt>
      <dd>
        {board.resetSchedule
          ? `reset on the schedule ${board.resetSchedule}`
          : board.duration
            ? `each lasts ${board.duration} s`
            : 'one period, never reset'}
        {board.startAt && (
          <>
            {' '}
            from <Time value={board.startAt} />
          </>
        )}
        {board.endAt && (
          <>
            {' '}
            until <Time value={board.endAt} />
          </>
        )}
        ; {board.keepPeriods} closed periods kept
      </dd>
      <dt>Last reset</dt>
      <dd>{board.resetAt ? <Time value={board.resetAt} /> : 'never by an admin'}</dd>
      <dt>Entry</dt>
      <dd>
        {board.entrant === 'USER' ? 'one persona per player' : 'each persona on its own'}, {board.joinRequired ? 'join first' : 'open'}
        {board.maxSize ? `, at most ${board.maxSize} ${board.entrant === 'USER' ? 'players' : 'personas'}` : ''}
        {board.maxNumScore ? `, ${board.maxNumScore} attempts each` : ''}
      </dd>
    </dl>
  );
}

/** A prize's items, each linked to its catalog page. */
function Items({ items }: { items: Array<{ itemUid: string; quantity: number }> }) {
  return (
    <>
      {items.map((entry, index) => (
        <span key={entry.itemUid}>
          {index > 0 && ', '}
          {entry.quantity} × <Link to={`/catalog/items/${entry.itemUid}`}>{entry.itemUid}</Link>
        </span>
      ))}
    </>
  );
}

/**
 * Resets the board at the version read: the period open now ends now and closes as a scheduled one
 * would (final ranks, prizes paid), and a new, empty one begins. If another admin changed or reset the
 * board meanwhile, the API refuses (409) and the admin reads it again before deciding.
 */
function Reset({ board }: { board: Board }) {
  const client = useQueryClient();
  const [asking, setAsking] = useState(false);
  const [reason, setReason] = useState('');
  const [status, announce] = useAnnouncer();
  const reset = useMutation({
    mutationFn: () =>
      must(
        api.POST('/leaderboards/{id}/reset', {
          params: {
            path: { id: board.uid },
            header: { 'If-Match': `"${board.version}"`, ...(reason ? { 'X-Audit-Reason': reason } : {}) },
          },
        }),
      ),
    onSuccess: () => {
      setAsking(false);
      setReason('');
      announce(`Reset ${board.name}: the period that was open closes with its ranks and prizes, and a new one has begun.`);
      for (const key of ['leaderboard', 'leaderboard-periods', 'leaderboard-records'])
        void client.invalidateQueries({ queryKey: [key, board.uid] });
    },
    onError: () => {
      setAsking(false);
      void client.invalidateQueries({ queryKey: ['leaderboard', board.uid] });
    },
  });
  return (
    <section aria-labelledby="reset-title">
      <h2 id="reset-title">Reset</h2>
      <p>
        Ends the period open now as its schedule would: its ranks become final and its rewards are paid. A new, empty period begins at once.
      </p>
      <button type="button" onClick={() => setAsking(true)}>
        Reset the board
      </button>
      {reset.error && <ErrorNote error={reset.error} />}
      {status}
      <Confirm
        open={asking}
        title={`Reset ${board.name}?`}
        confirmLabel="Reset now"
        onConfirm={() => reset.mutate()}
        onCancel={() => setAsking(false)}
        reason={[reason, setReason]}
      >
        <p>Every player starts from zero. The period that ends pays its rewards; this cannot be undone.</p>
      </Confirm>
    </section>
  );
}

function Rewards({ board }: { board: Board }) {
  return (
    <section aria-labelledby="rewards-title">
      <h2 id="rewards-title">Rewards</h2>
      {board.rewards.length === 0 ? (
        <p class="empty">No rewards: a closed period pays nothing.</p>
      ) : (
        <Table caption="Rewards by rank" head={['Ranks', 'Each receives']}>
          {board.rewards.map((tier) => (
            <tr key={`${tier.rankFrom}-${tier.rankTo}`}>
              <td>{tier.rankFrom === tier.rankTo ? tier.rankFrom : `${tier.rankFrom}–${tier.rankTo}`}</td>
              <td>
                <Items items={tier.items} />
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

/** `seats`: the board's maxSize, the only boards whose periods count their seats. */
function Periods({ uid, current, seats }: { uid: string; current: string; seats: number | null | undefined }) {
  const [skip, setSkip] = useState(0);
  const periods = useQuery({
    queryKey: ['leaderboard-periods', uid, skip],
    queryFn: () =>
      must(
        api.GET('/leaderboards/{id}/periods', { params: { path: { id: uid }, query: { limit: 10, skip, sort: '{"startsAt":"DESC"}' } } }),
      ),
  });
  return (
    <section aria-labelledby="periods-title">
      <h2 id="periods-title">Periods</h2>
      <Loaded query={periods} empty={(rows) => rows.length === 0 && skip === 0}>
        {(rows) => (
          <>
            <Table caption="Periods" head={['Starts', 'Ends', 'Status', 'Seats taken', 'Records']}>
              {rows.map((period) => (
                <tr key={period.uid}>
                  <td>
                    <Time value={period.startsAt} />
                  </td>
                  <td>
                    <Time value={period.endsAt} />
                  </td>
                  <td>{period.status}</td>
                  <td>{seats ? `${period.size} of ${seats}` : '–'}</td>
                  <td>
                    <Link to={`/leaderboards/${uid}?period=${period.uid}`} aria-current={current === period.uid ? 'true' : undefined}>
                      Ranked records
                    </Link>
                  </td>
                </tr>
              ))}
            </Table>
            <Pager
              label="Period pages"
              onNewer={skip > 0 ? () => setSkip(Math.max(0, skip - 10)) : undefined}
              onOlder={rows.length === 10 ? () => setSkip(skip + 10) : undefined}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}

function Records({ uid, period }: { uid: string; period: string }) {
  const client = useQueryClient();
  const { cursor, pager } = useNextCursors();
  const [status, announce] = useAnnouncer();
  const [doomed, setDoomed] = useState<RankedRecord | null>(null);
  const [reason, setReason] = useState('');
  const records = useQuery({
    queryKey: ['leaderboard-records', uid, period, cursor],
    queryFn: async () => {
      const { data, response } = await mustAnswer(
        api.GET('/leaderboards/{id}/records', {
          params: { path: { id: uid }, query: { limit: PAGE, period, ...(cursor ? { cursor } : {}) } },
        }),
      );
      return { rows: data, next: response.headers.get('X-Next-Cursor') };
    },
  });
  const remove = useMutation({
    mutationFn: (record: RankedRecord) =>
      must(
        api.DELETE('/leaderboards/{id}/records/{personaUid}', {
          params: {
            path: { id: uid, personaUid: record.personaUid },
            query: { period: record.periodUid },
            header: reason ? { 'X-Audit-Reason': reason } : {},
          },
        }),
      ),
    onSuccess: (_answer, record) => {
      setDoomed(null);
      setReason('');
      announce(`Deleted the record of ${record.personaName}.`);
      void client.invalidateQueries({ queryKey: ['leaderboard-records', uid] });
    },
  });
  return (
    <section aria-labelledby="records-title">
      <h2 id="records-title">Ranked records{period === 'current' ? ' (current period)' : ''}</h2>
      <Loaded query={records} empty={({ rows }) => rows.length === 0 && !cursor}>
        {({ rows, next }) => (
          <>
            <Table caption="Ranked records" head={['Rank', 'Persona', 'Score', 'Subscore', 'Attempts', 'Changed', '']}>
              {rows.map((record) => (
                <tr key={record.uid}>
                  <td>{record.rank ?? '–'}</td>
                  <td>
                    {record.personaName} <code>{record.personaUid}</code>
                  </td>
                  <td>{score(record.score)}</td>
                  <td>{score(record.subscore)}</td>
                  <td>{record.numScore}</td>
                  <td>
                    <Time value={record.dateModified} />
                  </td>
                  <td>
                    <button type="button" class="secondary" onClick={() => setDoomed(record)}>
                      Delete<span class="visually-hidden"> the record of {record.personaName}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </Table>
            {pager(next, 'Record pages')}
          </>
        )}
      </Loaded>
      {remove.error && <ErrorNote error={remove.error} />}
      {status}
      <Confirm
        open={doomed !== null}
        title={`Delete the record of ${doomed?.personaName ?? ''}?`}
        confirmLabel="Delete record"
        onConfirm={() => doomed && remove.mutate(doomed)}
        onCancel={() => setDoomed(null)}
        reason={[reason, setReason]}
      >
        <p>It leaves the ranks at once; the admin audit keeps who deleted it and why.</p>
      </Confirm>
    </section>
  );
}

const PRIZES = 25;

/** What a period pays: shown for a period named in the URL, once closed (an open one pays nothing yet). */
function Prizes({ uid, period }: { uid: string; period: string }) {
  const [skip, setSkip] = useState(0);
  const prizes = useQuery({
    queryKey: ['leaderboard-prizes', uid, period, skip],
    queryFn: () =>
      must(
        api.GET('/leaderboards/{id}/periods/{periodId}/payouts', {
          params: { path: { id: uid, periodId: period }, query: { limit: PRIZES, skip } },
        }),
      ),
  });
  return (
    <section aria-labelledby="prizes-title">
      <h2 id="prizes-title">Prizes paid</h2>
      <Loaded query={prizes} empty={(rows) => rows.length === 0 && skip === 0}>
        {(rows) => (
          <>
            <Table caption="Prizes of the period" head={['Rank', 'Persona', 'Items', 'Status', 'Transaction', 'Paid']}>
              {rows.map((prize: Prize) => (
                <tr key={prize.uid}>
                  <td>{prize.rank}</td>
                  <td>
                    {prize.personaName} <code>{prize.personaUid}</code>
                  </td>
                  <td>
                    <Items items={prize.items} />
                  </td>
                  <td>
                    {prize.status}
                    {prize.error ? `: ${prize.error}` : ''}
                  </td>
                  <td>
                    {prize.transactionUid ? (
                      <Link to={`/economy/transactions/${prize.transactionUid}`}>
                        <code>{prize.transactionUid}</code>
                      </Link>
                    ) : (
                      '–'
                    )}
                  </td>
                  <td>
                    <Time value={prize.datePaid} />
                  </td>
                </tr>
              ))}
            </Table>
            <Pager
              label="Prize pages"
              names={['Previous', 'Next']}
              onNewer={skip > 0 ? () => setSkip(Math.max(0, skip - PRIZES)) : undefined}
              onOlder={rows.length === PRIZES ? () => setSkip(skip + PRIZES) : undefined}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}
