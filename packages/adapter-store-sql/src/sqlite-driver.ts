import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { Row, SqlDriver, SqlParam, SqlQuerier } from "./sql-driver.js";

/**
 * SQLite through Node's built-in `node:sqlite`. Statements are synchronous, but a transaction spans
 * awaits, so every call goes through one queue: nothing from another request can slip into an open
 * transaction. WAL and a busy timeout let several processes share one file.
 */
export const openSqliteDriver = (path: string): SqlDriver => {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new DatabaseSync(path);
  db.exec("PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;");
  if (path !== ":memory:") db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
  const statements = new Map<string, StatementSync>();
  const prepare = (sql: string): StatementSync => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const direct: SqlQuerier = {
    all: async (sql, params: ReadonlyArray<SqlParam> = []) => prepare(sql).all(...params) as Row[],
    run: async (sql, params: ReadonlyArray<SqlParam> = []) => Number(prepare(sql).run(...params).changes),
    exec: async (sql) => db.exec(sql),
  };
  let tail: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const result = tail.then(work);
    tail = result.catch(() => undefined);
    return result;
  };
  return {
    dialect: "sqlite",
    all: (sql, params) => exclusive(() => direct.all(sql, params)),
    run: (sql, params) => exclusive(() => direct.run(sql, params)),
    exec: (sql) => exclusive(() => direct.exec(sql)),
    transaction: (work) =>
      exclusive(async () => {
        // IMMEDIATE takes the write lock now, so two processes migrating one file take turns.
        db.exec("BEGIN IMMEDIATE");
        try {
          const result = await work(direct);
          db.exec("COMMIT");
          return result;
        } catch (error) {
          db.exec("ROLLBACK");
          throw error;
        }
      }),
    close: () =>
      exclusive(async () => {
        if (db.isOpen) db.close();
      }),
  };
};
