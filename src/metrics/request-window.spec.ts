import { RequestWindow } from './request-window.js';

describe('RequestWindow', () => {
  it('counts the last minute by kind of answer, and forgets what is older', () => {
    let now = 1_000_000_000;
    const window = new RequestWindow(() => now);
    window.count(200);
    window.count(404);
    now += 30_000;
    window.count(500);
    window.count(201);
    expect(window.lastMinute()).toEqual({ requests: 4, clientErrors: 1, serverErrors: 1 });
    now += 30_000;
    expect(window.lastMinute()).toEqual({ requests: 2, clientErrors: 0, serverErrors: 1 });
    now += 60_000;
    expect(window.lastMinute()).toEqual({ requests: 0, clientErrors: 0, serverErrors: 0 });
  });

  it('reuses a slot a minute later without adding the old count', () => {
    let now = 5_000;
    const window = new RequestWindow(() => now);
    window.count(200);
    now += 60_000;
    window.count(200);
    expect(window.lastMinute().requests).toBe(1);
  });
});
