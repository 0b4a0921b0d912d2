import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { statementSummary } from '../../src/kernel/telemetry.js';

// What a database span says about a statement: operation and main table, never the text.
describe('statementSummary', () => {
  it('names the operation and main table of what drizzle and the hand-written statements send', () => {
    const cases: [string, string, string | undefined][] = [
      ['select "id", "name" from "companies" where "companies"."slug" = $1', 'SELECT', 'companies'],
      ['insert into "reports" ("id", "company_id") values ($1, $2) returning "id"', 'INSERT', 'reports'],
      ['update "webhook_deliveries" set "locked_until" = $1 where "id" = $2', 'UPDATE', 'webhook_deliveries'],
      ['delete from "sessions" where "expires_at" < $1', 'DELETE', 'sessions'],
      [
        'with items as (select i.* from jsonb_to_recordset($1::jsonb) as i(id uuid)), new_reports as (insert into reports (id) select id from items) select 1',
        'INSERT',
        'reports',
      ],
      ['with due as (select id from mail_messages where next_attempt_at <= $1) select * from due', 'SELECT', 'mail_messages'],
      ['select set_config($1, $2, true)', 'SELECT', undefined],
      ['begin', 'BEGIN', undefined],
      ['  COMMIT', 'COMMIT', undefined],
      ['', 'QUERY', undefined],
    ];
    for (const [sql, operation, table] of cases) assert.deepEqual(statementSummary(sql), { operation, table }, sql);
  });

  it('never returns a value from the statement, only identifiers it names', () => {
    assert.deepEqual(statementSummary("select * from reports where description = 'secret text'"), { operation: 'SELECT', table: 'reports' });
    assert.deepEqual(statementSummary("select 'from x' as y"), { operation: 'SELECT', table: undefined });
  });
});
