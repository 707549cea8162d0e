import type { DataSource, EntityManager } from 'typeorm';

const pending = new WeakMap<EntityManager, Array<() => void>>();

/**
 * Runs `callback` once `transaction` has committed, never if it rolls back: what must only be told of
 * a change that happened (a wake-up published to Redis). Only for transactions opened by `transact`.
 */
export function afterCommit(transaction: EntityManager, callback: () => void): void {
  const callbacks = pending.get(transaction);
  if (callbacks) callbacks.push(callback);
  else pending.set(transaction, [callback]);
}

/** One database transaction, then its after-commit callbacks (a retried attempt's are dropped with it). */
export async function transact<R>(dataSource: DataSource, work: (transaction: EntityManager) => Promise<R>): Promise<R> {
  let manager: EntityManager | undefined;
  const result = await dataSource.transaction((transaction) => {
    manager = transaction;
    return work(transaction);
  });
  for (const callback of (manager && pending.get(manager)) ?? []) callback();
  return result;
}
