import type { ChildProcess } from 'node:child_process';

/** Sends `signal` to a server the tests started and waits until it has exited (at once if it is gone). */
export async function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  // Already gone (an exit or a signal): its 'exit' has fired and would never fire again.
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}
