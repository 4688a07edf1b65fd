/**
 * Tuning for FerretDB 1.24 on PostgreSQL, outside the services (which only ever speak the MongoDB protocol).
 *
 * FerretDB turns a MongoDB index into a PostgreSQL btree on `(_jsonb -> 'field')`, but pushes equality filters down
 * as `(_jsonb -> 'field') @> '<value>'`, which a btree cannot serve: every pushed-down query is a sequential scan.
 * `mirrorIndexesAsGin` adds, for the leading field of every FerretDB index, a GIN index on the same expression,
 * which PostgreSQL does use for `@>`. FerretDB ignores indexes it did not create and drops them with the collection;
 * on MongoDB none of this is needed.
 *
 *   pnpm ferretdb-pg-tune postgres://user@host:5432/database
 */
import { execFileSync } from 'node:child_process';

/** Runs `query` with psql against the database at `url` (warnings silenced). @returns the unaligned output. */
export function sql(url: string, query: string): string {
  return execFileSync('psql', [url, '-v', 'ON_ERROR_STOP=1', '-Atq', '-c', query], {
    encoding: 'utf8',
    env: { ...process.env, PGOPTIONS: '-c client_min_messages=warning' },
  });
}

const quoteIdent = (s: string) => `"${s.replace(/"/g, '""')}"`;
const quoteLiteral = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * Creates the GIN twins of FerretDB's btree indexes in every schema of the database at `url` (idempotent), then
 * VACUUM ANALYZEs the tables.
 * @returns the `schema.table(field)` entries created or already present.
 */
export function mirrorIndexesAsGin(url: string): string[] {
  const rows = sql(
    url,
    "SELECT schemaname, tablename, indexdef FROM pg_indexes WHERE indexdef LIKE '%USING btree%_jsonb -> %' AND schemaname NOT IN ('pg_catalog', 'information_schema')",
  )
    .trim()
    .split('\n')
    .filter(Boolean);
  const wanted = new Map<string, { schema: string; table: string; field: string }>();
  for (const row of rows) {
    const [schema, table, def] = row.split('|') as [string, string, string];
    const m = /USING btree \(+_jsonb -> '((?:[^']|'')+)'::text\)/.exec(def);
    if (!m) continue;
    const field = (m[1] as string).replace(/''/g, "'");
    wanted.set(`${schema}.${table}(${field})`, { schema, table, field });
  }
  for (const { schema, table, field } of wanted.values()) {
    const name = `${table}_${field.replace(/[^a-zA-Z0-9_]/g, '_')}_gin`.slice(0, 63);
    sql(
      url,
      `CREATE INDEX IF NOT EXISTS ${quoteIdent(name)} ON ${quoteIdent(schema)}.${quoteIdent(table)} USING gin ((_jsonb -> ${quoteLiteral(field)}))`,
    );
  }
  for (const t of new Set([...wanted.values()].map((w) => `${quoteIdent(w.schema)}.${quoteIdent(w.table)}`))) sql(url, `ANALYZE ${t}`);
  return [...wanted.keys()];
}

/**
 * `ALTER DATABASE … SET plan_cache_mode = force_custom_plan` plus `mirrorIndexesAsGin`, for the database at `url`.
 * @returns the GIN twins, as `mirrorIndexesAsGin`.
 */
export function tuneDatabase(url: string): string[] {
  const name = sql(url, 'SELECT current_database()').trim();
  sql(url, `ALTER DATABASE ${quoteIdent(name)} SET plan_cache_mode = force_custom_plan`);
  return mirrorIndexesAsGin(url);
}

/** On-disk size of the PostgreSQL table behind a FerretDB collection, in bytes: heap (with TOAST) and indexes. */
export function collectionSize(url: string, schema: string, collection: string): { table: number; indexes: number } {
  const table = sql(
    url,
    `SELECT table_name FROM information_schema.tables WHERE table_schema = ${quoteLiteral(schema)} AND table_name LIKE ${quoteLiteral(`${collection}_%`)} LIMIT 1`,
  ).trim();
  if (!table) return { table: 0, indexes: 0 };
  const rel = `${quoteIdent(schema)}.${quoteIdent(table)}`;
  const [t, i] = sql(url, `SELECT pg_table_size('${rel}'), pg_indexes_size('${rel}')`).trim().split('|');
  return { table: Number(t), indexes: Number(i) };
}

if (process.argv[1]?.endsWith('ferretdb-pg.ts')) {
  const url = process.argv[2];
  if (!url) {
    console.error('usage: pnpm ferretdb-pg-tune <postgresql url of the database FerretDB uses>');
    process.exit(2);
  }
  for (const entry of tuneDatabase(url)) console.log(`gin: ${entry}`);
  console.log('plan_cache_mode = force_custom_plan set on the database; restart FerretDB so its connections use it');
}
