import { useQuery } from '@tanstack/preact-query';
import { api, must } from '../api.js';
import { Loaded, Table, Time } from '../ui.js';

/** A size as people read it: 1.5 MiB, 730 KiB, 12 B. */
const bytes = (count: number) => {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  const power = count > 0 ? Math.min(units.length - 1, Math.floor(Math.log2(count) / 10)) : 0;
  return `${(count / 1024 ** power).toFixed(power === 0 ? 0 : 1)} ${units[power]}`;
};

/** How often the figures are read again while the overview is open. */
const REFRESH_MS = 5_000;

export function Overview() {
  const stats = useQuery({ queryKey: ['stats'], queryFn: () => must(api.GET('/admin/stats')), refetchInterval: REFRESH_MS });
  const queue = useQuery({ queryKey: ['queue'], queryFn: () => must(api.GET('/tickets/stats')), refetchInterval: REFRESH_MS });
  return (
    <section>
      <h1>Overview</h1>
      <Loaded query={stats}>
        {(figures) => (
          <>
            <div class="figures" aria-live="polite">
              <article>
                <p class="figure">{figures.socketsOnline}</p>
                <p>players online (sockets, this instance)</p>
              </article>
              <article>
                <p class="figure">{figures.signInsPerMinute}</p>
                <p>sign-ins a minute</p>
              </article>
              <article>
                <p class="figure">{figures.requestsPerMinute}</p>
                <p>requests a minute (this instance)</p>
              </article>
              <article>
                <p class="figure">{figures.storageObjects}</p>
                <p>cloud-save objects ({bytes(figures.storageBytes)} of values)</p>
              </article>
              <article>
                <p class="figure">{figures.mediaFiles}</p>
                <p>media files ({bytes(figures.mediaBytes)})</p>
              </article>
              <article>
                <p class="figure">{(figures.errorRate * 100).toFixed(2)} %</p>
                <p>
                  server errors ({figures.serverErrorsPerMinute}; client errors {figures.clientErrorsPerMinute})
                </p>
              </article>
            </div>
            <p>
              <small>
                Measured <Time value={figures.measuredAt} />, read again every {REFRESH_MS / 1000} s.
              </small>
            </p>
          </>
        )}
      </Loaded>
      <h2>Matchmaking queue</h2>
      <Loaded query={queue}>
        {(depth) => (
          <>
            {depth.searching.length === 0 ? (
              <p class="empty">Nobody is searching.</p>
            ) : (
              <Table caption="Tickets searching, by shape" head={['Teams', 'Team size', 'Tickets searching']}>
                {depth.searching.map((shape) => (
                  <tr key={`${shape.numTeams}x${shape.teamSize}`}>
                    <td>{shape.numTeams}</td>
                    <td>{shape.teamSize}</td>
                    <td>{shape.tickets}</td>
                  </tr>
                ))}
              </Table>
            )}
            {depth.matchesPerMinute !== undefined && (
              <p>
                {depth.matchesPerMinute} matches a minute; median wait {depth.medianWaitSeconds ?? '–'} s over the last{' '}
                {depth.windowSeconds} s.
              </p>
            )}
          </>
        )}
      </Loaded>
    </section>
  );
}
