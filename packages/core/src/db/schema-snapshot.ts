import pg from 'pg';

/**
 * A normalized, order-independent description of a database schema read from the catalog:
 * enums, tables, columns, constraints and indexes. Two databases with the same snapshot have the
 * same schema, whatever order their DDL ran in. Used by the drift check (no pg_dump needed, so
 * the client/server version pairing does not matter).
 */
export async function schemaSnapshot(url: string, schema = 'public'): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const q = async (sql: string) => (await client.query(sql, [schema])).rows.map((r) => Object.values(r).join(' | '));
    const parts = [
      ...(await q(`select 'enum ' || t.typname, string_agg(e.enumlabel, ',' order by e.enumsortorder)
        from pg_type t join pg_enum e on e.enumtypid = t.oid join pg_namespace n on n.oid = t.typnamespace
        where n.nspname = $1 group by t.typname`)),
      ...(await q(`select 'column ' || table_name || '.' || column_name, data_type, udt_name, is_nullable,
          coalesce(column_default, ''), coalesce(character_maximum_length::text, ''), coalesce(datetime_precision::text, '')
        from information_schema.columns where table_schema = $1 and table_name <> '_prisma_migrations'`)),
      ...(await q(`select 'constraint ' || rel.relname || '.' || con.conname, pg_get_constraintdef(con.oid)
        from pg_constraint con join pg_class rel on rel.oid = con.conrelid join pg_namespace n on n.oid = rel.relnamespace
        where n.nspname = $1 and rel.relname <> '_prisma_migrations'`)),
      ...(await q(`select 'index ' || indexname, indexdef from pg_indexes
        where schemaname = $1 and tablename <> '_prisma_migrations'`)),
      ...(await q(`select 'sequence ' || sequence_name, data_type from information_schema.sequences where sequence_schema = $1`)),
    ];
    return parts.sort().join('\n');
  } finally {
    await client.end();
  }
}
