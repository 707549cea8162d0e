import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { UseQueryResult } from '@tanstack/preact-query';
import { ApiError } from './api.js';
import { BASE, navigate } from './router.js';

/** An in-console link: a real href (open in a new tab works), navigated without a reload. */
export function Link({ to, children, ...rest }: { to: string; children: ComponentChildren } & JSX.HTMLAttributes<HTMLAnchorElement>) {
  return (
    <a
      {...rest}
      href={`${BASE}${to}`}
      onClick={(event) => {
        if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
        event.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) return `${error.status} ${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

export function ErrorNote({ error }: { error: unknown }) {
  return (
    <p role="alert" class="error">
      {errorText(error)}
    </p>
  );
}

/** Loading, error and empty states for a query, then its content. */
export function Loaded<T>({
  query,
  empty,
  children,
}: {
  query: UseQueryResult<T>;
  empty?: (data: T) => boolean;
  children: (data: T) => ComponentChildren;
}) {
  if (query.isPending) return <p aria-busy="true">Loading…</p>;
  if (query.isError) return <ErrorNote error={query.error} />;
  if (empty?.(query.data)) return <p class="empty">Nothing here yet.</p>;
  return <>{children(query.data)}</>;
}

export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <>–</>;
  return <time dateTime={value}>{new Date(value).toLocaleString()}</time>;
}

/** A table that scrolls sideways on a phone rather than squeezing its columns. */
export function Table({ caption, head, children }: { caption: string; head: string[]; children: ComponentChildren }) {
  return (
    <div class="table" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {head.map((name) => (
              <th scope="col" key={name}>
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** Older and newer pages, by the API's cursors (X-Next-Skip, or `before`); `names` for lists in another order. */
export function Pager({
  onNewer,
  onOlder,
  label = 'Pages',
  names = ['Newer', 'Older'],
}: {
  onNewer?: () => void;
  onOlder?: () => void;
  label?: string;
  names?: [string, string];
}) {
  if (!onNewer && !onOlder) return null;
  return (
    <nav aria-label={label} class="pager">
      <button type="button" class="secondary" disabled={!onNewer} onClick={onNewer}>
        ← {names[0]}
      </button>
      <button type="button" class="secondary" disabled={!onOlder} onClick={onOlder}>
        {names[1]} →
      </button>
    </nav>
  );
}

/**
 * A modal confirmation (the native dialog: focus trapped, Escape cancels), with a field for the
 * reason the admin audit keeps (sent as X-Audit-Reason) when `reason` is given.
 */
export function Confirm({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
  reason,
}: {
  open: boolean;
  title: string;
  children?: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  reason?: [string, (reason: string) => void];
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    if (open && !dialog.current?.open) dialog.current?.showModal();
    if (!open && dialog.current?.open) dialog.current.close();
  }, [open]);
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" onClose={onCancel}>
      <article>
        <h2 id="confirm-title">{title}</h2>
        {children}
        {/* Only while open: a closed dialog's field would share its label with the page's own. */}
        {open && reason && (
          <label>
            Reason (kept in the admin audit)
            <input maxLength={500} value={reason[0]} onInput={(event) => reason[1](event.currentTarget.value)} />
          </label>
        )}
        <footer>
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
          <button type="button" onClick={onConfirm}>
            {confirmLabel}
          </button>
        </footer>
      </article>
    </dialog>
  );
}

/**
 * A conditional write refused because someone saved first: the admin's edit and what is saved now side
 * by side, nothing lost; the admin keeps theirs (saved over the new version) or takes the other.
 */
export function Conflict({
  title,
  mine,
  theirs,
  keepLabel,
  onKeep,
  onTake,
}: {
  title: string;
  mine: string;
  theirs: string;
  keepLabel: string;
  onKeep: () => void;
  onTake?: () => void;
}) {
  return (
    <section aria-labelledby="conflict-title" class="conflict">
      <h2 id="conflict-title" role="alert">
        {title}
      </h2>
      <p>Nothing was lost: your edit is on the left, what is saved now on the right. Choose which to keep.</p>
      <div class="grid">
        <div>
          <h3>Your edit</h3>
          <pre>{mine}</pre>
          <button type="button" onClick={onKeep}>
            {keepLabel}
          </button>
        </div>
        <div>
          <h3>Saved now</h3>
          <pre>{theirs}</pre>
          {onTake && (
            <button type="button" class="secondary" onClick={onTake}>
              Take theirs
            </button>
          )}
        </div>
      </div>
    </section>
  );
}

/** A status line that screen readers announce. */
export function useAnnouncer(): [ComponentChildren, (text: string) => void] {
  const [text, setText] = useState('');
  return [
    <p role="status" class="status">
      {text}
    </p>,
    setText,
  ];
}

/**
 * Pages of a newest-first list read with `before=<key of the last row>`: the cursors walked so far, so
 * that "Newer" goes back without the API paging forwards.
 */
export function useCursorPages<Row>(limit: number, keyOf: (row: Row) => string) {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  return {
    cursor,
    pager: (rows: Row[], label: string) => (
      <Pager
        label={label}
        onNewer={cursor ? () => setCursors(cursors.slice(0, -1)) : undefined}
        onOlder={rows.length === limit ? () => setCursors([...cursors, keyOf(rows[rows.length - 1])]) : undefined}
      />
    ),
  };
}

/**
 * Pages of a list whose answer names the next page's cursor (a leaderboard's `X-Next-Cursor`, storage's
 * `cursor`): the cursors walked so far, so that "Previous" goes back without the API paging backwards.
 */
export function useNextCursors() {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  return {
    cursor,
    reset: () => setCursors([]),
    pager: (next: string | null | undefined, label: string) => (
      <Pager
        label={label}
        names={['Previous', 'Next']}
        onNewer={cursor ? () => setCursors(cursors.slice(0, -1)) : undefined}
        onOlder={next ? () => setCursors([...cursors, next]) : undefined}
      />
    ),
  };
}
