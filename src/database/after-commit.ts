import type { DataSource, EntityManager } from 'typeorm';

/** The transactions `transact` has open, with what is to run at their end. */
const open = new WeakMap<EntityManager, { beforeCommit: Array<() => Promise<void>>; afterCommit: Array<() => void> }>();

/** Whether `transaction` was opened by `transact` and is still running its work. */
export function isTransacting(transaction: EntityManager): boolean {
  return open.has(transaction);
}

/**
 * Runs `callback` inside `transaction`, once its work is done and before it commits: what can be
 * gathered during the work and written in one statement at its end (the events of the change). If the
 * callback fails, the transaction rolls back. Only for transactions opened by `transact`.
 */
export function beforeCommit(transaction: EntityManager, callback: () => Promise<void>): void {
  const callbacks = open.get(transaction);
  if (!callbacks) throw new Error('beforeCommit needs a transaction opened by transact()');
  callbacks.beforeCommit.push(callback);
}

/**
 * Runs `callback` once `transaction` has committed, never if it rolls back: what must only be told of
 * a change that happened (a wake-up published to Redis). Outside a transaction opened by `transact`
 * (the pool's own manager, whose statements commit as they run) it runs at once.
 */
export function afterCommit(transaction: EntityManager, callback: () => void): void {
  const callbacks = open.get(transaction);
  if (callbacks) callbacks.afterCommit.push(callback);
  else callback();
}

/** One database transaction, with its before- and after-commit callbacks (a retried attempt's are dropped with it). */
export async function transact<R>(dataSource: DataSource, work: (transaction: EntityManager) => Promise<R>): Promise<R> {
  let done: Array<() => void> = [];
  const result = await dataSource.transaction(async (transaction) => {
    const callbacks = { beforeCommit: [] as Array<() => Promise<void>>, afterCommit: [] as Array<() => void> };
    open.set(transaction, callbacks);
    try {
      const answer = await work(transaction);
      // A callback may register another (an event recorded by a callback): run until none is left.
      for (let index = 0; index < callbacks.beforeCommit.length; index++) await callbacks.beforeCommit[index]();
      done = callbacks.afterCommit;
      return answer;
    } finally {
      open.delete(transaction);
    }
  });
  for (const callback of done) callback();
  return result;
}
