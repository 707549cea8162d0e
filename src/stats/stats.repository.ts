import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { runStatement, statement } from '../database/statement.js';

// Reads the partial index on sign-ins by time (migration AdminConsole): a minute's worth of rows.
const SIGN_INS_LAST_MINUTE = statement<Record<string, never>, { count: number }>(
  'sign_ins_last_minute',
  () => `SELECT count(*)::int AS count FROM auth_audit
          WHERE event = 'sign-in' AND outcome = 'success' AND "dateCreated" > now() - interval '60 seconds'`,
);

@Injectable()
export class StatsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Successful sign-ins in the last minute, whichever instance took them. */
  async signInsLastMinute(): Promise<number> {
    const [row] = await runStatement(this.dataSource, SIGN_INS_LAST_MINUTE, {});
    return row.count;
  }
}
