import { closeSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync, type StatementSync } from "node:sqlite";
import type { Row, SqlDriver, SqlParam, SqlQuerier } from "./sql-driver.js";

const BUSY_RETRY_MS = 10_000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** SQLITE_BUSY (5) or SQLITE_LOCKED (6): another connection holds the write lock. */
const isBusy = (error: unknown): boolean => {
  const code = (error as { errcode?: unknown }).errcode;
  return code === 5 || code === 6;
};

/**
 * A busy database is waited for with timers, not SQLite's busy handler: that one sleeps inside the
 * call and would block this process's event loop (and, with two connections in one process, the
 * very transaction it waits for).
 */
const retryWhileBusy = async <T>(work: () => T | Promise<T>): Promise<T> => {
  const deadline = Date.now() + BUSY_RETRY_MS;
  for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
    try {
      return await work();
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error;
      await sleep(delay);
    }
  }
};

/**
 * The file holds every caller's prompts and answers: a directory created for it is 0700 and a new
 * file 0600 (SQLite gives its `-wal` and `-shm` files the database file's mode). Existing ones are
 * left as their owner set them.
 */
const createPrivately = (path: string): void => {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  closeSync(openSync(path, "a", 0o600));
};

/**
 * SQLite through Node's built-in `node:sqlite`. Statements are synchronous, but a transaction spans
 * awaits, so every call goes through one queue: nothing from another request can slip into an open
 * transaction. WAL lets several processes share one file; a write lock held elsewhere is retried.
 */
export const openSqliteDriver = (path: string): SqlDriver => {
  if (path !== ":memory:") createPrivately(path);
  const db = new DatabaseSync(path);
  db.exec("PRAGMA busy_timeout = 0; PRAGMA foreign_keys = ON;");

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
  // Switching to WAL needs a moment of exclusive access: another process opening the file may hold it.
  let tail: Promise<unknown> =
    path === ":memory:"
      ? Promise.resolve()
      : retryWhileBusy(() => db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;"));
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const result = tail.then(work);
    tail = result.catch(() => undefined);
    return result;
  };
  return {
    dialect: "sqlite",
    all: (sql, params) => exclusive(() => retryWhileBusy(() => direct.all(sql, params))),
    run: (sql, params) => exclusive(() => retryWhileBusy(() => direct.run(sql, params))),
    exec: (sql) => exclusive(() => retryWhileBusy(() => direct.exec(sql))),
    transaction: (work) =>
      exclusive(async () => {
        // IMMEDIATE takes the write lock now, so two processes migrating one file take turns.
        await retryWhileBusy(() => db.exec("BEGIN IMMEDIATE"));
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
