import { connectRealtime, type RealtimeEvent } from '../sdk/index.js';
import { RealtimeHub } from '../src/realtime/realtime.hub.js';
import { TestApp } from './support/test-app.js';

/** The SDK's realtime client against the running service: typed events, reconnection, resume without gap or duplicate. */
describe('the typed realtime client (sdk/realtime.ts)', () => {
  let api: TestApp;
  beforeAll(async () => {
    api = await TestApp.start({}, { listen: true });
  });
  afterAll(() => api.close());

  it('receives typed events, and after the server drops the socket reconnects and resumes: nothing missed, nothing twice', async () => {
    const admin = await api.signIn('admin');
    const player = await api.signInWithPersona('sdk-player');
    const item = (await api.post('/items', { name: 'Lantern' }, { token: admin })).body.uid as string;
    const award = async (quantity: number) =>
      expect(
        (
          await api.post(
            '/inventories/transaction',
            { type: 'AWARD', personaOneUid: player.personaUid, personaOneInventoryItems: [{ itemUid: item, quantity }] },
            { token: admin },
          )
        ).status,
      ).toBe(200);

    const events: RealtimeEvent[] = [];
    const opened: Array<string | undefined> = [];
    const closes: number[] = [];
    let wake: () => void = () => undefined;
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise<void>((resolve) => (wake = resolve));
    };
    const realtime = connectRealtime({
      baseUrl: api.baseUrl,
      token: player.token,
      backoff: { initialMs: 50, maxMs: 200 },
      onEvent: (event) => {
        events.push(event);
        wake();
      },
      onOpen: (lastId) => {
        opened.push(lastId);
        wake();
      },
      onClose: (code) => closes.push(code),
    });
    try {
      await until(() => opened.length === 1);
      await award(1);
      await until(() => events.some((event) => event.type === 'inventory.updated'));
      const first = events.find((event) => event.type === 'inventory.updated');
      // Typed: the compiler knows the data of an inventory.updated event.
      if (first?.type === 'inventory.updated') expect(first.data.holdings[0].quantity).toBe(1);

      // The server drops the socket; events happen before the client is back.
      api.app.get(RealtimeHub).closeUser(player.uid, 1012, 'restarting');
      await award(2);
      await award(3);
      await until(() => events.filter((event) => event.type === 'inventory.updated').length === 3);
      expect(opened.length).toBe(2);
      expect(closes).toEqual([1012]);
      const quantities = events
        .filter((event) => event.type === 'inventory.updated')
        .map((event) => (event.data as { holdings: Array<{ quantity: number }> }).holdings[0].quantity);
      expect(quantities).toEqual([1, 3, 6]);
      expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
      expect(realtime.lastId).toBe(events[events.length - 1].id);
    } finally {
      realtime.close();
    }
  });
});
