import { useEffect, useState } from 'preact/hooks';

/** Every screen is a URL under /console, so a support agent can paste a link (the service answers the page for any of them). */
export const BASE = '/console';

const listeners = new Set<() => void>();
addEventListener('popstate', () => listeners.forEach((listener) => listener()));

export function navigate(path: string, replace = false): void {
  const url = path.startsWith(BASE) ? path : `${BASE}${path}`;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((listener) => listener());
}

/** The path inside the console (`/players/<uid>`) and its query. */
export function useLocation(): { path: string; query: URLSearchParams } {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((tick) => tick + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || '/' : '/';
  return { path, query: new URLSearchParams(location.search) };
}

/** `/players/:id` against `/players/abc` → `{ id: 'abc' }`, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const names: string[] = [];
  const regex = new RegExp(`^${pattern.replace(/:(\w+)/g, (_m, name: string) => (names.push(name), '([^/]+)'))}/?$`);
  const found = regex.exec(path);
  return found ? Object.fromEntries(names.map((name, index) => [name, decodeURIComponent(found[index + 1])])) : null;
}
