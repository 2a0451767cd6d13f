import pg from "pg";
import type { Row, SqlDriver, SqlParam, SqlQuerier } from "./sql-driver.js";

/** The store's SQL is written with `?`; PostgreSQL numbers its parameters. */
const numbered = (sql: string): string => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** Any constant key: replicas that start together apply migrations one after the other. */
const MIGRATION_LOCK = 4_178_230_611;

const querier = (client: pg.Pool | pg.PoolClient): SqlQuerier => ({
  all: async (sql, params: ReadonlyArray<SqlParam> = []) =>
    (await client.query(numbered(sql), [...params])).rows as Row[],
  run: async (sql, params: ReadonlyArray<SqlParam> = []) =>
    (await client.query(numbered(sql), [...params])).rowCount ?? 0,
  exec: async (sql) => {
    await client.query(sql);
  },
});

/** PostgreSQL through node-postgres: a pool for queries, one pooled client per transaction. */
export const openPostgresDriver = (
  connectionString: string,
  options: { readonly max?: number } = {},
): SqlDriver => {
  // A server that never answers (a dropped route, a firewall) fails a connect in 10 s, not never.
  const pool = new pg.Pool({ connectionString, max: options.max ?? 10, connectionTimeoutMillis: 10_000 });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on("error", () => undefined);
  const direct = querier(pool);
  return {
    dialect: "postgres",
    ...direct,
    async transaction(work, options = {}) {
      const client = await pool.connect();
      try {
        await client.query("BEGIN");
        if (options.lock === true) await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
        const result = await work(querier(client));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
};
