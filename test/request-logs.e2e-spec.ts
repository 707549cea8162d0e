import type { SessionBody } from './support/api-types.js';
import { CapturedLogs } from './support/captured-logs.js';
import { TestApp } from './support/test-app.js';

/** What the request log lines show of a secret sent in a URL: nothing, however it is spelled. */
describe('request logs', () => {
  let api: TestApp;
  const logs = new CapturedLogs();

  beforeAll(async () => {
    api = await TestApp.start({}, { logs });
  });
  afterAll(() => api.close());

  /** The text as any decoder could read it: percent-decoded until nothing changes. */
  const revealed = (text: string): string => {
    for (let previous = ''; previous !== text;) {
      previous = text;
      text = text.replace(/%([0-9a-f]{2})/gi, (_match, hex: string) => String.fromCharCode(parseInt(hex, 16))).replace(/\+/g, ' ');
    }
    return text;
  };

  it('never show a join password, however its name or value is encoded', async () => {
    const [host, guest, stranger] = await api.signInPlayers(3, 'logged');
    const created = await api.post<SessionBody>('/sessions', { numTeams: 2, teamSize: 2, password: 'S3cret' }, { token: host.token });
    expect(created.status).toBe(201);
    const path = `/sessions/${created.body.uid}/join`;

    // Fastify decodes the parameter's name: this is the password, and it lets the guest in.
    const joined = await api.get<SessionBody>(`${path}?pass%77ord=S3cret`, { token: guest.token });
    expect(joined.status).toBe(200);
    expect(JSON.stringify(joined.body)).toContain(guest.uid);

    for (const query of [
      '%70assword=S3cret',
      'PASSWORD=S3cret',
      'password=S%33cret',
      'password=S3cr%65t&password=S3cret',
      'pass+word=x&password=S3cret+',
      'limit=1?password=S3cret',
      'limit=1;password=S3cret',
      'x=1&pass%2577ord=S3cret',
      'x=%3Fpassword%3DS3cret',
    ]) {
      await api.get(`${path}?${query}`, { token: stranger.token });
    }
    await api.get(`/sessions/${created.body.uid};password=S3cret/join`, { token: stranger.token });

    expect(logs.text()).toContain(`"url":"${path}?`);
    expect(logs.lines.filter((line) => line.includes(path))).toHaveLength(10);
    expect(logs.lines.filter((line) => revealed(line).includes('S3cret'))).toEqual([]);
  });
});
