import { beforeAll, describe, expect, it } from 'vitest';
import { classifySql, loadSqlParser } from '../../src/playground/sql-classify.js';

beforeAll(async () => {
  await loadSqlParser();
});

describe('classifySql (PostgreSQL parser, no regular expressions)', () => {
  const reads = ["SELECT id, total FROM orders WHERE tenant_id = 'acme' LIMIT 10", 'select 1', 'WITH t AS (SELECT * FROM a) SELECT * FROM t JOIN b USING (id)', "SELECT 'UPDATE orders SET x = 1' AS text", '/* DELETE FROM x */ SELECT 2', 'SELECT * FROM a UNION SELECT * FROM b'];
  const writes: [string, RegExp][] = [
    ['UPDATE orders SET total = 0', /UpdateStmt/],
    ['insert into t values (1)', /InsertStmt/],
    ['DELETE FROM t', /DeleteStmt/],
    ['SELECT * FROM t FOR UPDATE', /FOR UPDATE/],
    ['SELECT * INTO copy FROM t', /INTO/],
    ['WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d', /DeleteStmt/],
    ['SELECT 1; DROP TABLE t', /DropStmt/],
    ['CREATE TABLE x (id int)', /CreateStmt/],
    ['COPY t TO STDOUT', /CopyStmt/],
    ['SET ROLE admin', /VariableSetStmt/],
  ];
  for (const sql of reads) it(`read: ${sql}`, () => expect(classifySql(sql).class).toBe('read'));
  for (const [sql, why] of writes) {
    it(`write: ${sql}`, () => {
      const result = classifySql(sql);
      expect(result.class).toBe('write');
      if (result.class === 'write') expect(result.why).toMatch(why);
    });
  }
  it('refuses what the parser refuses, and empty input', () => {
    expect(classifySql('SELEC 1').class).toBe('invalid');
    expect(classifySql('   ').class).toBe('invalid');
    expect(classifySql('-- only a comment').class).toBe('invalid');
  });
  it('names the tables read', () => {
    expect(classifySql('SELECT * FROM public.orders o JOIN items i ON i.order_id = o.id')).toMatchObject({ class: 'read', tables: ['items', 'public.orders'] });
  });
});

describe('tables', () => it('names the table a write targets', () => {
  expect(classifySql('UPDATE orders SET total = 0')).toMatchObject({ class: 'write', tables: ['orders'] });
}));
