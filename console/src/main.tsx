import '@picocss/pico/css/pico.min.css';
import './console.css';
import { QueryClient, QueryClientProvider } from '@tanstack/preact-query';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError } from './api.js';
import { finishOidcSignIn, onSessionChange, signedInAs, signInAsSubject, signOut, startOidcSignIn } from './auth.js';
import { readConfig } from './config.js';
import { match, navigate, useLocation } from './router.js';
import { Audit, AuditEntryPage } from './screens/audit.js';
import { CatalogList, CatalogRecordPage, isCatalogKind } from './screens/catalog.js';
import { Economy, TransactionPage } from './screens/economy.js';
import { LeaderboardPage, Leaderboards } from './screens/leaderboards.js';
import { Lobbies } from './screens/lobbies.js';
import { Overview } from './screens/overview.js';
import { PlayerPage, Players } from './screens/players.js';
import { StorageCollection, StorageObjectPage, StorageOwner } from './screens/storage.js';
import { ErrorNote, Link } from './ui.js';

const config = readConfig();

const queries = new QueryClient({
  defaultOptions: {
    // A refused request (4xx) is an answer, not a glitch: retrying it changes nothing.
    queries: { retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2, staleTime: 10_000 },
  },
});

const SCREENS = [
  { to: '/', label: 'Overview' },
  { to: '/players', label: 'Players' },
  { to: '/economy', label: 'Economy' },
  { to: '/catalog/items', label: 'Catalog' },
  { to: '/leaderboards', label: 'Leaderboards' },
  { to: '/storage', label: 'Storage' },
  { to: '/lobbies', label: 'Lobbies' },
  { to: '/audit', label: 'Audit' },
];

function Screen({ path, query }: { path: string; query: URLSearchParams }) {
  let params: Record<string, string> | null;
  if (path === '/') return <Overview />;
  if (path === '/players') return <Players query={query} />;
  if ((params = match('/players/:uid', path))) return <PlayerPage key={params.uid} uid={params.uid} />;
  if (path === '/economy') return <Economy query={query} />;
  if ((params = match('/economy/transactions/:uid', path))) return <TransactionPage uid={params.uid} />;
  if (path === '/catalog') return <CatalogList kind="items" query={query} />;
  if ((params = match('/catalog/:kind', path)) && isCatalogKind(params.kind))
    return <CatalogList key={params.kind} kind={params.kind} query={query} />;
  if ((params = match('/catalog/:kind/:uid', path)) && isCatalogKind(params.kind))
    return <CatalogRecordPage key={params.uid} kind={params.kind} uid={params.uid} />;
  if (path === '/leaderboards') return <Leaderboards query={query} />;
  if ((params = match('/leaderboards/:uid', path))) return <LeaderboardPage key={params.uid} uid={params.uid} query={query} />;
  if (path === '/storage') return <StorageOwner query={query} />;
  if ((params = match('/storage/:owner/:collection', path)))
    return <StorageCollection key={path} owner={params.owner} collection={params.collection} />;
  if ((params = match('/storage/:owner/:collection/:key', path)))
    return <StorageObjectPage key={path} owner={params.owner} collection={params.collection} storageKey={params.key} />;
  if (path === '/lobbies') return <Lobbies query={query} />;
  if (path === '/audit') return <Audit query={query} />;
  if ((params = match('/audit/:id', path))) return <AuditEntryPage id={params.id} />;
  return (
    <section>
      <h1>Not found</h1>
      <p>
        No screen at this address. <Link to="/">Overview</Link>
      </p>
    </section>
  );
}

function SignIn({ returnTo }: { returnTo: string }) {
  const [subject, setSubject] = useState('admin');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = (work: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    work()
      .catch(setError)
      .finally(() => setBusy(false));
  };
  return (
    <main class="container sign-in">
      <article>
        <h1>LiveOps console</h1>
        {config.signIn === 'development' && (
          <form onSubmit={(event) => (event.preventDefault(), run(() => signInAsSubject(subject.trim())))}>
            <p>Development sign-in: pick a subject of the built-in identity provider (admins only get in).</p>
            <label>
              Subject
              <input
                required
                maxLength={128}
                pattern="[A-Za-z0-9._@:\-]+"
                autoComplete="username"
                value={subject}
                onInput={(event) => setSubject(event.currentTarget.value)}
              />
            </label>
            <button type="submit" aria-busy={busy}>
              Sign in
            </button>
          </form>
        )}
        {config.signIn === 'oidc' && (
          <button type="button" aria-busy={busy} onClick={() => run(() => startOidcSignIn(config, returnTo))}>
            Sign in with your identity provider
          </button>
        )}
        {config.signIn === 'unavailable' && <p role="alert">Sign-in is not available: {config.reason}.</p>}
        {error !== null && <ErrorNote error={error} />}
      </article>
    </main>
  );
}

function Callback() {
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    if (config.signIn !== 'oidc') return setError(new Error('this service does not sign the console in with an identity provider'));
    finishOidcSignIn(config).then((to) => navigate(to, true), setError);
  }, []);
  return <main class="container">{error ? <ErrorNote error={error} /> : <p aria-busy="true">Signing in…</p>}</main>;
}

function App() {
  const { path, query } = useLocation();
  const [subject, setSubject] = useState(signedInAs());
  useEffect(() => onSessionChange(() => setSubject(signedInAs())), []);
  useEffect(() => {
    const title = SCREENS.find((screen) => screen.to !== '/' && path.startsWith(screen.to.replace(/\/items$/, '')))?.label ?? 'Overview';
    document.title = `${title} · LiveOps console`;
  }, [path]);
  if (path === '/callback') return <Callback />;
  if (!subject) return <SignIn returnTo={path + location.search} />;
  return (
    <>
      <a href="#main" class="skip">
        Skip to content
      </a>
      <header class="container">
        <nav aria-label="Screens">
          <ul>
            <li>
              <strong>LiveOps</strong>
            </li>
          </ul>
          <ul class="screens">
            {SCREENS.map((screen) => {
              const current = screen.to === '/' ? path === '/' : path.startsWith(screen.to.replace(/\/items$/, ''));
              return (
                <li key={screen.to}>
                  <Link to={screen.to} aria-current={current ? 'page' : undefined}>
                    {screen.label}
                  </Link>
                </li>
              );
            })}
            <li>
              <button type="button" class="outline secondary" onClick={() => void signOut()}>
                Sign out {subject}
              </button>
            </li>
          </ul>
        </nav>
      </header>
      <main id="main" class="container" tabIndex={-1}>
        <Screen path={path} query={query} />
      </main>
    </>
  );
}

render(
  <QueryClientProvider client={queries}>
    <App />
  </QueryClientProvider>,
  document.getElementById('app')!,
);
