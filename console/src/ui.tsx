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

/** Older and newer pages, by the API's cursors (X-Next-Skip, or `before`). */
export function Pager({ onNewer, onOlder, label = 'Pages' }: { onNewer?: () => void; onOlder?: () => void; label?: string }) {
  if (!onNewer && !onOlder) return null;
  return (
    <nav aria-label={label} class="pager">
      <button type="button" class="secondary" disabled={!onNewer} onClick={onNewer}>
        ← Newer
      </button>
      <button type="button" class="secondary" disabled={!onOlder} onClick={onOlder}>
        Older →
      </button>
    </nav>
  );
}

/** A modal confirmation (the native dialog: focus trapped, Escape cancels). */
export function Confirm({
  open,
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children?: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
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
