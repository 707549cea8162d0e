import type { Criterion } from '../tickets/ticket.entity.js';
import {
  compatible,
  criteriaAt,
  distance,
  findMatches,
  inRange,
  type OpenSession,
  planMatch,
  planPass,
  rankCandidates,
  relax,
  satisfies,
  type WaitingTicket,
  widening,
} from './matching.js';

let counter = 0;
function ticket(overrides: Partial<WaitingTicket> & { skill?: number } = {}): WaitingTicket {
  counter += 1;
  const { skill, ...rest } = overrides;
  return {
    uid: `t${counter}`,
    hostUid: `host${counter}`,
    numTeams: 2,
    teamSize: 1,
    users: [`user${counter}`],
    criteria: [],
    statistics: skill === undefined ? [] : [{ name: 'skill', value: skill }],
    ...rest,
  };
}

const skillBetween = (minValue: number, maxValue: number): Criterion => ({ name: 'skill', minValue, maxValue });

describe('criteria', () => {
  it('hold for values inside the inclusive range, of the bounds type only', () => {
    expect(inRange(1000, skillBetween(1000, 1400))).toBe(true);
    expect(inRange(1400, skillBetween(1000, 1400))).toBe(true);
    expect(inRange(1401, skillBetween(1000, 1400))).toBe(false);
    expect(inRange(999, { name: 'skill', minValue: 1000 })).toBe(false);
    expect(inRange(5, { name: 'skill', maxValue: 10 })).toBe(true);
    expect(inRange('1200', skillBetween(1000, 1400))).toBe(false);
    expect(inRange('eu-west', { name: 'region', minValue: 'eu', maxValue: 'eu-zz' })).toBe(true);
    expect(inRange(true, { name: 'ranked', minValue: true, maxValue: true })).toBe(true);
    expect(inRange(false, { name: 'ranked', minValue: true })).toBe(false);
  });

  it('OR criteria of one name and AND criteria of different names', () => {
    const criteria: Criterion[] = [
      { name: 'region', minValue: 'eu', maxValue: 'eu' },
      { name: 'region', minValue: 'us', maxValue: 'us' },
      skillBetween(1000, 1400),
    ];
    const stats = (region: string, skill: number) => [
      { name: 'region', value: region },
      { name: 'skill', value: skill },
    ];
    expect(satisfies(criteria, stats('us', 1200))).toBe(true);
    expect(satisfies(criteria, stats('eu', 1200))).toBe(true);
    expect(satisfies(criteria, stats('asia', 1200))).toBe(false);
    expect(satisfies(criteria, stats('eu', 1500))).toBe(false);
  });

  it('fail when the other ticket lacks the statistic', () => {
    expect(satisfies([skillBetween(0, 10)], [])).toBe(false);
    expect(satisfies([], [])).toBe(true);
  });

  it('must hold both ways, on tickets of the same shape', () => {
    const picky = ticket({ skill: 1200, criteria: [skillBetween(1000, 1400)] });
    const strong = ticket({ skill: 2000 });
    const average = ticket({ skill: 1100 });
    expect(compatible(picky, strong)).toBe(false);
    expect(compatible(strong, picky)).toBe(false);
    expect(compatible(picky, average)).toBe(true);
    expect(compatible(average, ticket({ skill: 1100, numTeams: 3 }))).toBe(false);
    expect(compatible(average, ticket({ skill: 1100, teamSize: 2 }))).toBe(false);
  });
});

describe('fitness', () => {
  it('is the weighted sum of statistic differences, weight 1 by default', () => {
    const a = ticket({
      statistics: [
        { name: 'skill', value: 100 },
        { name: 'level', value: 10 },
        { name: 'region', value: 'eu' },
      ],
    });
    const b = ticket({
      statistics: [
        { name: 'skill', value: 150 },
        { name: 'level', value: 12 },
        { name: 'region', value: 'us' },
      ],
    });
    expect(distance(a, b, {})).toBe(50 + 2 + 1);
    expect(distance(a, b, { skill: 0.1, region: 10 })).toBeCloseTo(5 + 2 + 10);
    expect(distance(a, ticket(), {})).toBe(0);
  });

  it('orders candidates closest first, the older first on a tie, and leaves out incompatible ones', () => {
    const anchor = ticket({ skill: 100, criteria: [skillBetween(0, 1000)] });
    const far = ticket({ skill: 900 });
    const near = ticket({ skill: 150 });
    const tieOlder = ticket({ skill: 50 });
    const excluded = ticket({ skill: 5000 });
    expect(rankCandidates(anchor, [anchor, far, near, tieOlder, excluded], {}).map((t) => t.uid)).toEqual([
      near.uid,
      tieOlder.uid,
      far.uid,
    ]);
  });
});

describe('planning a match', () => {
  it('fills every seat with the closest tickets', () => {
    const oldest = ticket({ skill: 100 });
    const close = ticket({ skill: 150 });
    const far = ticket({ skill: 900 });
    const match = planMatch(oldest, [oldest, far, close], {});
    expect(match?.teams.map((team) => team.map((t) => t.uid))).toEqual([[oldest.uid], [close.uid]]);
  });

  it('keeps a party on one team', () => {
    const party = ticket({ teamSize: 2, users: ['p1', 'p2'] });
    const solo1 = ticket({ teamSize: 2 });
    const solo2 = ticket({ teamSize: 2 });
    const match = planMatch(solo1, [solo1, party, solo2], {});
    expect(match).toBeDefined();
    const teams = match!.teams.map((team) => team.flatMap((t) => t.users).sort());
    expect(teams).toContainEqual(['p1', 'p2']);
    expect(teams.flat()).toHaveLength(4);
  });

  it('packs parties so that a later, bigger party still fits (fullest team first)', () => {
    // Teams of 3: solo, solo go together, leaving a whole team for the trio.
    const solo1 = ticket({ teamSize: 3 });
    const solo2 = ticket({ teamSize: 3 });
    const solo3 = ticket({ teamSize: 3 });
    const trio = ticket({ teamSize: 3, users: ['x', 'y', 'z'] });
    const match = planMatch(solo1, [solo1, solo2, solo3, trio], {});
    expect(match?.teams.map((team) => team.flatMap((t) => t.users).length)).toEqual([3, 3]);
  });

  it('gives up when the seats cannot be filled', () => {
    const lonely = ticket({ skill: 100 });
    expect(planMatch(lonely, [lonely], {})).toBeUndefined();
  });

  it('never seats one user twice', () => {
    const first = ticket({ users: ['same'] });
    const second = ticket({ users: ['same'] });
    expect(planMatch(first, [first, second], {})).toBeUndefined();
  });

  it('requires every pair of the match to be compatible, not only the anchor', () => {
    const anchor = ticket({ numTeams: 3, skill: 500 });
    const low = ticket({ numTeams: 3, skill: 100, criteria: [skillBetween(0, 600)] });
    const high = ticket({ numTeams: 3, skill: 900, criteria: [skillBetween(400, 1000)] });
    // low and high exclude each other; each alone suits the anchor.
    expect(compatible(anchor, low) && compatible(anchor, high)).toBe(true);
    expect(planMatch(anchor, [anchor, low, high], {})).toBeUndefined();
  });
});

describe('finding matches', () => {
  it('serves the oldest tickets first and uses each ticket once', () => {
    const tickets = Array.from({ length: 5 }, (_, index) => ticket({ skill: index }));
    const matches = findMatches(tickets, {});
    expect(matches).toHaveLength(2);
    expect(matches.map((match) => match.anchor.uid)).toEqual([tickets[0].uid, tickets[2].uid]);
    const used = matches.flatMap((match) => match.teams.flat().map((t) => t.uid));
    expect(new Set(used).size).toBe(4);
    expect(used).not.toContain(tickets[4].uid);
  });

  it('matches tickets of different shapes separately', () => {
    const duel = [ticket(), ticket()];
    const trios = Array.from({ length: 3 }, () => ticket({ numTeams: 3 }));
    const matches = findMatches([duel[0], trios[0], duel[1], trios[1], trios[2]], {});
    expect(matches.map((match) => match.teams.length).sort()).toEqual([2, 3]);
  });
});

describe('relaxation', () => {
  const relaxation = { stepPercent: 10, everySeconds: 10, maxPercent: 100 };
  const created = new Date('2026-11-24T12:00:00.000Z');
  const at = (seconds: number) => created.getTime() + seconds * 1000;

  it('widens a numeric range by a step of its width every period, half on each side, up to the cap', () => {
    expect(widening(9_999, relaxation)).toBe(0);
    expect(widening(10_000, relaxation)).toBeCloseTo(0.1);
    expect(widening(35_000, relaxation)).toBeCloseTo(0.3);
    expect(widening(3_600_000, relaxation)).toBe(1);
    expect(widening(60_000, undefined)).toBe(0);
    expect(relax(skillBetween(1000, 1400), 0.3)).toEqual({ name: 'skill', minValue: 940, maxValue: 1460 });
  });

  it('leaves exact values, one-sided bounds and non-numeric ranges as they are', () => {
    for (const criterion of [
      { name: 'level', minValue: 5, maxValue: 5 },
      { name: 'skill', minValue: 1000 },
      { name: 'region', minValue: 'eu', maxValue: 'eu-zz' },
    ]) {
      expect(relax(criterion, 1)).toEqual(criterion);
    }
  });

  it('measures the wait from the ticket creation to the injected time of the pass', () => {
    const picky = ticket({ skill: 1200, criteria: [skillBetween(1000, 1400)], dateCreated: created });
    expect(criteriaAt(picky, at(5), relaxation)).toEqual([skillBetween(1000, 1400)]);
    expect(criteriaAt(picky, at(30), relaxation)).toEqual([skillBetween(940, 1460)]);
    expect(criteriaAt({ ...picky, dateCreated: undefined }, at(600), relaxation)).toEqual([skillBetween(1000, 1400)]);
  });

  it('matches a ticket that waited long enough with one just outside its first range, and not before', () => {
    const picky = ticket({ skill: 1200, criteria: [skillBetween(1000, 1400)], dateCreated: created });
    const outside = ticket({ skill: 1450, dateCreated: created });
    const options = { relaxation };
    expect(findMatches([picky, outside], {}, { ...options, now: at(29) })).toEqual([]);
    // At 30 s the range is 940..1460: 1450 is in it.
    expect(findMatches([picky, outside], {}, { ...options, now: at(30) })).toHaveLength(1);
  });
});

describe('backfill', () => {
  const session = (overrides: Partial<OpenSession> = {}): OpenSession => ({
    uid: 's1',
    numTeams: 2,
    teamSize: 2,
    users: ['a', 'b', 'c'],
    teams: [
      { id: 0, members: ['a', 'b'] },
      { id: 1, members: ['c'] },
    ],
    tickets: [],
    ...overrides,
  });

  it('fills open seats with compatible tickets, on the team with room, before new sessions are made', () => {
    const first = ticket({ numTeams: 2, teamSize: 2 });
    const second = ticket({ numTeams: 2, teamSize: 2 });
    const third = ticket({ numTeams: 2, teamSize: 2 });
    const fourth = ticket({ numTeams: 2, teamSize: 2 });
    expect(findMatches([first, second, third, fourth], {})).toHaveLength(1);
    const { backfills, matches } = planPass([first, second, third, fourth], [session()]);
    expect(backfills).toEqual([{ session: expect.objectContaining({ uid: 's1' }), seats: [{ ticket: first, teamId: 1 }] }]);
    // The three left cannot fill a session of four on their own.
    expect(matches).toEqual([]);
  });

  it('keeps a party on one team, and skips one that no team has room for', () => {
    const duo = ticket({ numTeams: 2, teamSize: 2, users: ['d', 'e'] });
    const solo = ticket({ numTeams: 2, teamSize: 2 });
    const { backfills } = planPass([duo, solo], [session()]);
    expect(backfills[0].seats).toEqual([{ ticket: solo, teamId: 1 }]);
    const roomy = session({
      users: ['a'],
      teams: [
        { id: 0, members: ['a'] },
        { id: 1, members: [] },
      ],
    });
    expect(planPass([duo], [roomy]).backfills[0].seats).toEqual([{ ticket: duo, teamId: 1 }]);
  });

  it('takes only tickets that suit the tickets already seated, of the session shape, with none of its members', () => {
    const seated = ticket({ numTeams: 2, teamSize: 2, skill: 1200, criteria: [skillBetween(1000, 1400)] });
    const tooStrong = ticket({ numTeams: 2, teamSize: 2, skill: 2000 });
    const otherShape = ticket({ numTeams: 3, teamSize: 2, skill: 1200 });
    const member = ticket({ numTeams: 2, teamSize: 2, skill: 1200, users: ['c'] });
    const fitting = ticket({ numTeams: 2, teamSize: 2, skill: 1300 });
    const { backfills } = planPass([tooStrong, otherShape, member, fitting], [session({ tickets: [seated] })]);
    expect(backfills[0].seats.map((seat) => seat.ticket)).toEqual([fitting]);
  });

  it('prefers the candidates closest to the session first ticket', () => {
    const seated = ticket({ numTeams: 2, teamSize: 1, skill: 1000 });
    const far = ticket({ numTeams: 2, teamSize: 1, skill: 1500 });
    const near = ticket({ numTeams: 2, teamSize: 1, skill: 1010 });
    const open = session({
      numTeams: 2,
      teamSize: 1,
      users: ['a'],
      teams: [
        { id: 0, members: ['a'] },
        { id: 1, members: [] },
      ],
      tickets: [seated],
    });
    expect(planPass([far, near], [open]).backfills[0].seats).toEqual([{ ticket: near, teamId: 1 }]);
  });
});

describe('a pass', () => {
  it('never uses one user in two matches, even from two tickets', () => {
    const tickets = [ticket({ users: ['same'] }), ticket(), ticket({ users: ['same'] }), ticket()];
    const matches = findMatches(tickets, {});
    const users = matches.flatMap((match) => match.teams.flat().flatMap((t) => t.users));
    expect(users.filter((user) => user === 'same')).toHaveLength(1);
    expect(matches).toHaveLength(1);
  });

  it('finds the same matches through its index as by trying every pair', () => {
    // A reference without the index: each anchor, oldest first, with its closest compatible tickets.
    const reference = (pool: WaitingTicket[]) => {
      const used = new Set<WaitingTicket>();
      const pairs: string[] = [];
      for (const anchor of pool) {
        if (used.has(anchor)) continue;
        const candidate = pool
          .filter((other) => other !== anchor && !used.has(other) && compatible(anchor, other))
          .map((other, order) => ({ other, order, distance: distance(anchor, other, {}) }))
          .sort((left, right) => left.distance - right.distance || left.order - right.order)[0]?.other;
        if (!candidate) continue;
        used.add(anchor).add(candidate);
        pairs.push(`${anchor.uid}+${candidate.uid}`);
      }
      return pairs;
    };
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const pool = Array.from({ length: 300 }, () => {
      const skill = Math.round(random() * 3000);
      const width = 50 + Math.round(random() * 300);
      return ticket({ skill, criteria: random() < 0.8 ? [skillBetween(skill - width, skill + width)] : [] });
    });
    const found = findMatches(pool, {}).map((match) => `${match.teams[0][0].uid}+${match.teams[1][0].uid}`);
    const canonical = (pairs: string[]) => pairs.map((pair) => pair.split('+').sort().join('+')).sort();
    expect(canonical(found)).toEqual(canonical(reference(pool)));
    expect(found.length).toBeGreaterThan(100);
  });
});
