import { loadModule, parseSync } from 'libpg-query';

/**
 * SQL classified by PostgreSQL's own parser (libpg_query compiled to WebAssembly), never by
 * regular expressions. A statement list is a read only when every statement is a plain SELECT
 * (no INTO, no FOR UPDATE/SHARE) and nothing inside it writes (a data-modifying CTE). Anything
 * else — INSERT, UPDATE, DELETE, MERGE, DDL, COPY, SET, a statement the parser refuses — is a
 * write, so an unknown shape fails closed.
 */
export type SqlClass = { class: 'read'; statements: string[]; tables: string[] } | { class: 'write'; statements: string[]; tables: string[]; why: string } | { class: 'invalid'; message: string };

const WRITE_NODES = new Set(['InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt']);

let loaded: Promise<void> | undefined;

/** Loads the parser's WebAssembly module once per process. */
export function loadSqlParser(): Promise<void> {
  loaded ??= loadModule();
  return loaded;
}

/** Classifies `sql`; call `loadSqlParser()` first. */
export function classifySql(sql: string): SqlClass {
  let tree: { stmts?: { stmt?: Record<string, unknown> }[] };
  try {
    tree = parseSync(sql) as typeof tree;
  } catch (error) {
    return { class: 'invalid', message: error instanceof Error ? error.message : String(error) };
  }
  const stmts = tree.stmts ?? [];
  if (stmts.length === 0) return { class: 'invalid', message: 'no SQL statement' };
  const statements: string[] = [];
  const tables = new Set<string>();
  let why: string | undefined;
  for (const { stmt } of stmts) {
    const kind = stmt ? (Object.keys(stmt)[0] ?? 'unknown') : 'unknown';
    statements.push(kind);
    const node = stmt?.[kind];
    if (kind !== 'SelectStmt') why ??= `${kind} is not a SELECT`;
    walk(node, (key, value) => {
      if (WRITE_NODES.has(key)) why ??= `${key} inside the statement`;
      if (key === 'lockingClause') why ??= 'SELECT ... FOR UPDATE/SHARE takes row locks';
      if (key === 'intoClause') why ??= 'SELECT ... INTO creates a table';
      if ((key === 'RangeVar' || key === 'relation') && typeof value === 'object' && value !== null) {
        const range = value as { schemaname?: unknown; relname?: unknown };
        if (typeof range.relname === 'string') tables.add(typeof range.schemaname === 'string' ? `${range.schemaname}.${range.relname}` : range.relname);
      }
    });
  }
  const sorted = [...tables].sort();
  return why === undefined ? { class: 'read', statements, tables: sorted } : { class: 'write', statements, tables: sorted, why };
}

function walk(value: unknown, visit: (key: string, value: unknown) => void, depth = 0): void {
  if (depth > 200 || typeof value !== 'object' || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit, depth + 1);
    return;
  }
  for (const [key, child] of Object.entries(value)) {
    visit(key, child);
    walk(child, visit, depth + 1);
  }
}
