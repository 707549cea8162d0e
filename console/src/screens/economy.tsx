import { useMutation, useQuery } from '@tanstack/preact-query';
import { useState } from 'preact/hooks';
import { api, idempotencyKey, must } from '../api.js';
import { navigate } from '../router.js';
import { ErrorNote, Link, Loaded, Pager, Table, Time, useAnnouncer } from '../ui.js';

const PAGE = 25;

export function Economy({ query }: { query: URLSearchParams }) {
  return (
    <section>
      <h1>Economy</h1>
      <Grant persona={query.get('persona') ?? ''} />
      <FindTransaction />
      <PendingTrades skip={Number(query.get('skip') ?? 0)} />
    </section>
  );
}

/** Award or remove: a new Idempotency-Key per click, so a retried request never awards twice. */
function Grant({ persona }: { persona: string }) {
  const [form, setForm] = useState({ type: 'AWARD' as 'AWARD' | 'REMOVAL', personaUid: persona, itemUid: '', quantity: '1', reason: '' });
  const [status, announce] = useAnnouncer();
  const grant = useMutation({
    mutationFn: () =>
      must(
        api.POST('/inventories/transaction', {
          params: { header: { 'Idempotency-Key': idempotencyKey(), 'X-Audit-Reason': form.reason } },
          body: {
            type: form.type,
            personaOneUid: form.personaUid,
            personaOneInventoryItems: [{ itemUid: form.itemUid, quantity: Number(form.quantity) }],
          },
        }),
      ),
    onSuccess: (transaction) => announce(`${form.type === 'AWARD' ? 'Awarded' : 'Removed'}: transaction ${transaction.uid}.`),
  });
  const field = (name: keyof typeof form) => ({
    value: form[name],
    onInput: (event: { currentTarget: { value: string } }) => setForm({ ...form, [name]: event.currentTarget.value }),
  });
  return (
    <section aria-labelledby="grant-title">
      <h2 id="grant-title">Award or remove items</h2>
      <form onSubmit={(event) => (event.preventDefault(), grant.mutate())}>
        <fieldset>
          <legend>Kind</legend>
          {(['AWARD', 'REMOVAL'] as const).map((type) => (
            <label key={type}>
              <input type="radio" name="grant-type" checked={form.type === type} onChange={() => setForm({ ...form, type })} />
              {type === 'AWARD' ? 'Award' : 'Remove'}
            </label>
          ))}
        </fieldset>
        <div class="grid">
          <label>
            Persona uid
            <input required pattern="[0-9a-fA-F\-]{36}" {...field('personaUid')} />
          </label>
          <label>
            Item uid
            <input required pattern="[0-9a-fA-F\-]{36}" {...field('itemUid')} />
          </label>
          <label>
            Quantity
            <input required type="number" min={1} max={2147483647} {...field('quantity')} />
          </label>
        </div>
        <label>
          Reason (kept in the admin audit)
          <input required maxLength={500} {...field('reason')} />
        </label>
        <button type="submit" aria-busy={grant.isPending}>
          {form.type === 'AWARD' ? 'Award' : 'Remove'}
        </button>
      </form>
      {grant.error && <ErrorNote error={grant.error} />}
      {grant.data && (
        <p>
          <Link to={`/economy/transactions/${grant.data.uid}`}>See the transaction</Link>
        </p>
      )}
      {status}
    </section>
  );
}

function FindTransaction() {
  const [uid, setUid] = useState('');
  return (
    <section aria-labelledby="find-title">
      <h2 id="find-title">A transaction</h2>
      <form role="search" onSubmit={(event) => (event.preventDefault(), navigate(`/economy/transactions/${uid.trim()}`))}>
        <fieldset role="group">
          <label class="visually-hidden" for="transaction-uid">
            Transaction uid
          </label>
          <input
            id="transaction-uid"
            required
            pattern="[0-9a-fA-F\-]{36}"
            placeholder="Transaction uid"
            value={uid}
            onInput={(event) => setUid(event.currentTarget.value)}
          />
          <button type="submit">Open</button>
        </fieldset>
      </form>
    </section>
  );
}

function PendingTrades({ skip }: { skip: number }) {
  const trades = useQuery({
    queryKey: ['pending', skip],
    queryFn: () =>
      must(api.GET('/transactions', { params: { query: { status: 'PENDING', limit: PAGE, skip, sort: '{"dateCreated":"DESC"}' } } })),
  });
  return (
    <section aria-labelledby="pending-title">
      <h2 id="pending-title">Pending trades</h2>
      <Loaded query={trades} empty={(rows) => rows.length === 0 && skip === 0}>
        {(rows) => (
          <>
            <Table caption="Pending trades" head={['Created', 'From persona', 'To persona', '']}>
              {rows.map((row) => (
                <tr key={row.uid}>
                  <td>
                    <Time value={row.dateCreated} />
                  </td>
                  <td>{row.personaOneUid}</td>
                  <td>{row.personaTwoUid ?? '–'}</td>
                  <td>
                    <Link to={`/economy/transactions/${row.uid}`}>detail</Link>
                  </td>
                </tr>
              ))}
            </Table>
            <Pager
              onNewer={skip > 0 ? () => navigate(`/economy?skip=${Math.max(0, skip - PAGE)}`) : undefined}
              onOlder={rows.length === PAGE ? () => navigate(`/economy?skip=${skip + PAGE}`) : undefined}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}

export function TransactionPage({ uid }: { uid: string }) {
  const transaction = useQuery({
    queryKey: ['transaction', uid],
    queryFn: () => must(api.GET('/transactions/{id}', { params: { path: { id: uid } } })),
  });
  return (
    <section>
      <p>
        <Link to="/economy">← Economy</Link>
      </p>
      <h1>Transaction</h1>
      <Loaded query={transaction}>
        {(row) => (
          <>
            <dl class="facts">
              <dt>Uid</dt>
              <dd>
                <code>{row.uid}</code>
              </dd>
              <dt>Type</dt>
              <dd>{row.type}</dd>
              <dt>Status</dt>
              <dd>{row.status}</dd>
              <dt>Created</dt>
              <dd>
                <Time value={row.dateCreated} />
              </dd>
            </dl>
            <div class="grid">
              <div>
                <h2>Persona one gives</h2>
                <pre>{JSON.stringify(row.personaOneInventoryItems, null, 2)}</pre>
              </div>
              <div>
                <h2>Persona two gives</h2>
                <pre>{JSON.stringify(row.personaTwoInventoryItems ?? [], null, 2)}</pre>
              </div>
            </div>
            <details>
              <summary>The whole record</summary>
              <pre>{JSON.stringify(row, null, 2)}</pre>
            </details>
          </>
        )}
      </Loaded>
    </section>
  );
}
