import {
  type KeyLoad,
  type UsageCounts,
  type UsageFilter,
  type UsageRow,
  type UsageStore,
  UsageWriteRejected,
} from "@proxy/core/gateway";
import type { Row, SqlDriver, SqlParam } from "./sql-driver.js";

const COUNTS = [
  ["requests", "requests"],
  ["inputTokens", "input_tokens"],
  ["cachedInputTokens", "cached_input_tokens"],
  ["outputTokens", "output_tokens"],
  ["reasoningTokens", "reasoning_tokens"],
  ["toolCalls", "tool_calls"],
  ["webSearches", "web_searches"],
  ["errors", "errors"],
] as const;

const COLUMNS = COUNTS.map(([, column]) => column);
/** One upsert adds a turn's counts to its row: atomic in both dialects, so replicas add up. */
const RECORD = `INSERT INTO key_usage (api_key, day, route, ${COLUMNS.join(", ")})
  VALUES (?, ?, ?, ${COLUMNS.map(() => "?").join(", ")})
  ON CONFLICT (api_key, day, route) DO UPDATE SET ${COLUMNS.map((c) => `${c} = key_usage.${c} + excluded.${c}`).join(", ")}`;
const ADD_TOKENS = `INSERT INTO key_minutes (api_key, minute, tokens) VALUES (?, ?, ?)
  ON CONFLICT (api_key, minute) DO UPDATE SET tokens = key_minutes.tokens + excluded.tokens`;
/** Counts a request unless the bucket is full; the row is left unchanged (0 rows) when it is. */
const ADMIT = `INSERT INTO key_minutes (api_key, minute, requests) VALUES (?, ?, 1)
  ON CONFLICT (api_key, minute) DO UPDATE SET requests = key_minutes.requests + 1 WHERE key_minutes.requests < ?`;
const TOTALS = `SELECT ${COUNTS.map(([field, column]) => `COALESCE(SUM(${column}), 0) AS "${field}"`).join(", ")} FROM key_usage`;

const toRow = (row: Row): UsageRow => ({
  key: String(row.api_key),
  route: String(row.route),
  day: String(row.day),
  requests: Number(row.requests),
  inputTokens: Number(row.input_tokens),
  cachedInputTokens: Number(row.cached_input_tokens),
  outputTokens: Number(row.output_tokens),
  reasoningTokens: Number(row.reasoning_tokens),
  toolCalls: Number(row.tool_calls),
  webSearches: Number(row.web_searches ?? 0),
  errors: Number(row.errors),
});

/**
 * Failures that come from the values written, so no retry can pass them. PostgreSQL's SQLSTATE
 * classes 22 (data exception: a NUL byte, a number out of range), 23 (integrity constraint) and 54
 * (program limit: an index row over its size limit); SQLite's TOOBIG, CONSTRAINT, MISMATCH and
 * RANGE (primary codes; the extended ones carry them in the low byte).
 */
const valueFailure = (error: unknown): boolean => {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  if (typeof errcode === "number") return [18, 19, 20, 25].includes(errcode & 0xff);
  return typeof code === "string" && /^(22|23|54)[0-9A-Z]{3}$/.test(code);
};

const rejecting = (error: unknown): unknown =>
  valueFailure(error)
    ? new UsageWriteRejected(`the store cannot hold this usage: ${(error as Error).message}`, {
        cause: error,
      })
    : error;

/** The WHERE clause of a filter, with its parameters. */
const filtered = (filter: UsageFilter) => {
  const where: string[] = [];
  const params: SqlParam[] = [];
  const add = (clause: string, value: string | undefined) => {
    if (value === undefined) return;
    where.push(clause);
    params.push(value);
  };
  add("api_key = ?", filter.key);
  add("route = ?", filter.route);
  add("day >= ?", filter.from);
  add("day <= ?", filter.to);
  return { where, params };
};

const whereSql = (where: ReadonlyArray<string>) => (where.length > 0 ? ` WHERE ${where.join(" AND ")}` : "");

/** The UsageStore over a migrated SqlDriver (SQLite or PostgreSQL, same SQL). */
export const createSqlUsageStore = (db: SqlDriver): UsageStore => ({
  recordUsage: (rows, minutes = []) =>
    db
      .transaction(async (tx) => {
        for (const row of rows)
          await tx.run(RECORD, [row.key, row.day, row.route, ...COUNTS.map(([field]) => row[field])]);
        for (const m of minutes) await tx.run(ADD_TOKENS, [m.key, m.minute, m.tokens]);
      })
      .catch((error: unknown) => {
        throw rejecting(error);
      }),
  async usage(filter, page) {
    const { where, params } = filtered(filter);
    if (page.after !== undefined) {
      // Keyset paging in the listing's own order: each page is one index range, however deep.
      where.push("(day, api_key, route) > (?, ?, ?)");
      params.push(page.after.day, page.after.key, page.after.route);
    }
    params.push(page.limit + 1);
    const rows = await db.all(
      `SELECT * FROM key_usage${whereSql(where)} ORDER BY day, api_key, route LIMIT ?`,
      params,
    );
    return { data: rows.slice(0, page.limit).map(toRow), hasMore: rows.length > page.limit };
  },
  async usageTotals(filter): Promise<UsageCounts> {
    const { where, params } = filtered(filter);
    const [row = {}] = await db.all(`${TOTALS}${whereSql(where)}`, params);
    const count = (field: keyof UsageCounts) => Number(row[field] ?? 0);
    return {
      requests: count("requests"),
      inputTokens: count("inputTokens"),
      cachedInputTokens: count("cachedInputTokens"),
      outputTokens: count("outputTokens"),
      reasoningTokens: count("reasoningTokens"),
      toolCalls: count("toolCalls"),
      webSearches: count("webSearches"),
      errors: count("errors"),
    };
  },
  async admitRequest(key, minute, rpm) {
    return (await db.run(ADMIT, [key, minute, rpm])) > 0;
  },
  async keyLoad(key, minute, day): Promise<KeyLoad> {
    const [minuteRows, dayRows] = await Promise.all([
      db.all("SELECT tokens FROM key_minutes WHERE api_key = ? AND minute = ?", [key, minute]),
      db.all(
        "SELECT COALESCE(SUM(input_tokens + output_tokens), 0) AS tokens, COALESCE(SUM(web_searches), 0) AS searches FROM key_usage WHERE api_key = ? AND day = ?",
        [key, day],
      ),
    ]);
    return {
      minuteTokens: Number(minuteRows[0]?.tokens ?? 0),
      dayTokens: Number(dayRows[0]?.tokens ?? 0),
      daySearches: Number(dayRows[0]?.searches ?? 0),
    };
  },
  purgeMinutesBefore: (minute) => db.run("DELETE FROM key_minutes WHERE minute < ?", [minute]),
  purgeUsageBefore: (day) => db.run("DELETE FROM key_usage WHERE day < ?", [day]),
});
