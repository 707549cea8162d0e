import {
  auditableBody,
  auditableJsonText,
  DEFAULT_AUDIT_PAGE,
  isWrite,
  maskSecrets,
  MAX_AUDIT_PAGE,
  MAX_AUDIT_REASON,
  readAuditReason,
} from './audit-rules.js';
import { AuditListQuery } from './dto/audit-query.js';
import type { ApiException } from '../common/errors.js';
import { RequestValidationPipe } from '../common/validation.pipe.js';

describe('admin audit rules', () => {
  it('keeps a JSON body as it is, and notes a streamed one instead of its bytes', () => {
    expect(auditableBody({ name: 'Sword', tags: ['a'] })).toEqual({ name: 'Sword', tags: ['a'] });
    expect(auditableBody(['a'])).toEqual(['a']);
    expect(auditableBody(null)).toBeNull();
    class IncomingStream {
      headers = { 'content-type': 'image/png', 'content-length': '1024' };
      socket = { self: this };
    }
    expect(auditableBody(new IncomingStream())).toEqual({ streamed: true });
  });

  it('counts every method but GET and HEAD as a write, and the GET routes marked as writes', () => {
    expect(['POST', 'PUT', 'DELETE', 'PATCH'].map((method) => isWrite(method, false))).toEqual([true, true, true, true]);
    expect(isWrite('GET', false)).toBe(false);
    expect(isWrite('HEAD', false)).toBe(false);
    expect(isWrite('GET', true)).toBe(true);
  });

  it('keeps a reason, trimmed, and refuses one too long, with control characters or sent twice', () => {
    expect(readAuditReason(undefined)).toEqual({ reason: null });
    expect(readAuditReason('')).toHaveProperty('problem');
    expect(readAuditReason('  ')).toHaveProperty('problem');
    expect(readAuditReason(' refund for ticket #812 ')).toEqual({ reason: 'refund for ticket #812' });
    expect(readAuditReason('Olá, ação corrigida')).toEqual({ reason: 'Olá, ação corrigida' });
    expect(readAuditReason('x'.repeat(MAX_AUDIT_REASON))).toEqual({ reason: 'x'.repeat(MAX_AUDIT_REASON) });
    expect(readAuditReason('x'.repeat(MAX_AUDIT_REASON + 1))).toHaveProperty('problem');
    expect(readAuditReason('one\nline')).toHaveProperty('problem');
    expect(readAuditReason(['a', 'b'])).toHaveProperty('problem');
  });

  it('keeps JSON that jsonb takes: lone surrogates become U+FFFD, in values and keys', () => {
    const stored = (value: unknown) => JSON.parse(auditableJsonText(value) ?? 'null') as unknown;
    expect(stored({ name: '\udfff a', ['k\ud800']: ['ok 🎮'], when: new Date(0) })).toEqual({
      name: '\ufffd a',
      ['k\ufffd']: ['ok 🎮'],
      when: '1970-01-01T00:00:00.000Z',
    });
    // A well-formed value is JSON.stringify's text; a client's literal backslash-u stays text.
    const plain = { name: 'Sword 🎮', text: 'C:\\ud800\\x', nested: [{ n: 1 }] };
    expect(auditableJsonText(plain)).toBe(JSON.stringify(plain));
    expect(stored({ path: 'C:\\ud800 \ud800' })).toEqual({ path: 'C:\\ud800 \ufffd' });
    expect(auditableJsonText(undefined)).toBeNull();
    expect(auditableJsonText(null)).toBeNull();
  });

  it('masks passwords and tokens at any depth, and nothing else', () => {
    const body = { name: 'Lobby', password: 'hunter2', nested: [{ refreshToken: 'abc', clientSecret: 's', keep: 1 }], count: 3 };
    expect(maskSecrets(body)).toEqual({
      name: 'Lobby',
      password: '***',
      nested: [{ refreshToken: '***', clientSecret: '***', keep: 1 }],
      count: 3,
    });
    expect(body.password).toBe('hunter2');
    expect(maskSecrets(null)).toBeNull();
    expect(maskSecrets('text')).toBe('text');
  });
});

describe('the audit list query', () => {
  const uid = '2f1c9a4e-8b7d-4c3a-9e2f-1a2b3c4d5e6f';
  const pipe = new RequestValidationPipe();
  const read = (query: Record<string, unknown>) => pipe.transform(query, { type: 'query', metatype: AuditListQuery, data: undefined });

  it('reads every filter, the position and the limit', async () => {
    await expect(
      read({
        actorUid: uid.toUpperCase(),
        targetUid: uid,
        action: 'PUT /items',
        since: '2026-01-01',
        until: '2026-02-01T10:00:00Z',
        before: '42',
        limit: '10',
      }),
    ).resolves.toEqual(
      Object.assign(new AuditListQuery(), {
        actorUid: uid,
        targetUid: uid,
        action: 'PUT /items',
        since: new Date('2026-01-01'),
        until: new Date('2026-02-01T10:00:00Z'),
        before: '42',
        limit: 10,
      }),
    );
    await expect(read({})).resolves.toMatchObject({ limit: DEFAULT_AUDIT_PAGE, before: undefined, action: undefined });
  });

  it('names each parameter at fault', async () => {
    const error = (await read({
      actorUid: 'nobody',
      since: 'yesterday',
      before: '-1',
      limit: String(MAX_AUDIT_PAGE + 1),
      color: 'red',
      action: ['a', 'b'],
    }).catch((caught: unknown) => caught)) as ApiException;
    expect(error.extra.errors?.map(({ field }) => field).sort()).toEqual(
      ['action', 'actorUid', 'before', 'color', 'limit', 'since'].sort(),
    );
  });
});
