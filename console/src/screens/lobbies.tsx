import { useQuery } from '@tanstack/preact-query';
import { api, must } from '../api.js';
import { navigate } from '../router.js';
import { Link, Loaded, Pager, Table, Time } from '../ui.js';

const PAGE = 25;

export function Lobbies({ query }: { query: URLSearchParams }) {
  const skip = Number(query.get('skip') ?? 0);
  const ticketSkip = Number(query.get('ticketSkip') ?? 0);
  const sessions = useQuery({
    queryKey: ['sessions', skip],
    queryFn: () =>
      must(api.GET('/sessions', { params: { query: { limit: PAGE, skip, status: 'ne(ENDED)', sort: '{"dateCreated":"DESC"}' } } })),
  });
  const tickets = useQuery({
    queryKey: ['tickets', ticketSkip],
    queryFn: () =>
      must(
        api.GET('/tickets', { params: { query: { limit: PAGE, skip: ticketSkip, status: 'SEARCHING', sort: '{"dateCreated":"DESC"}' } } }),
      ),
  });
  const page = (next: { skip?: number; ticketSkip?: number }) =>
    navigate(`/lobbies?skip=${next.skip ?? skip}&ticketSkip=${next.ticketSkip ?? ticketSkip}`);
  return (
    <section>
      <h1>Lobbies and matchmaking</h1>
      <p>
        The queue by shape is on the <Link to="/">overview</Link>.
      </p>
      <h2>Sessions</h2>
      <Loaded query={sessions} empty={(rows) => rows.length === 0 && skip === 0}>
        {(rows) => (
          <>
            <Table caption="Sessions not ended" head={['Created', 'Status', 'Visibility', 'Shape', 'Host', 'Teams']}>
              {rows.map((session) => (
                <tr key={session.uid}>
                  <td>
                    <Time value={session.dateCreated} />
                  </td>
                  <td>{session.status}</td>
                  <td>{session.visibility}</td>
                  <td>
                    {session.numTeams} × {session.teamSize}
                  </td>
                  <td>
                    <Link to={`/players/${session.hostUid}`}>host</Link>
                  </td>
                  <td>
                    {session.teams.map((team) => (
                      <span key={team.id} class="team">
                        team {team.id}:{' '}
                        {team.members.length === 0
                          ? 'empty'
                          : team.members.map((member, index) => (
                              <>
                                {index > 0 && ', '}
                                <Link to={`/players/${member}`}>{member.slice(0, 8)}</Link>
                              </>
                            ))}
                      </span>
                    ))}
                  </td>
                </tr>
              ))}
            </Table>
            <Pager
              label="Session pages"
              onNewer={skip > 0 ? () => page({ skip: Math.max(0, skip - PAGE) }) : undefined}
              onOlder={rows.length === PAGE ? () => page({ skip: skip + PAGE }) : undefined}
            />
          </>
        )}
      </Loaded>
      <h2>Tickets searching</h2>
      <Loaded query={tickets} empty={(rows) => rows.length === 0 && ticketSkip === 0}>
        {(rows) => (
          <>
            <Table caption="Tickets searching" head={['Created', 'Shape', 'Players', 'Host', 'Expires']}>
              {rows.map((ticket) => (
                <tr key={ticket.uid}>
                  <td>
                    <Time value={ticket.dateCreated} />
                  </td>
                  <td>
                    {ticket.numTeams} × {ticket.teamSize}
                  </td>
                  <td>{ticket.numUsers}</td>
                  <td>
                    <Link to={`/players/${ticket.hostUid}`}>host</Link>
                  </td>
                  <td>
                    <Time value={ticket.expiresAt} />
                  </td>
                </tr>
              ))}
            </Table>
            <Pager
              label="Ticket pages"
              onNewer={ticketSkip > 0 ? () => page({ ticketSkip: Math.max(0, ticketSkip - PAGE) }) : undefined}
              onOlder={rows.length === PAGE ? () => page({ ticketSkip: ticketSkip + PAGE }) : undefined}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}
