import type { SqlDriver } from "./sql-driver.js";

/** The column types that differ between the two dialects; everything else is shared SQL. */
interface Types {
  /** Epoch milliseconds and counters. */
  readonly int: string;
  /** An auto-numbered primary key: the order items were appended in. */
  readonly seq: string;
}

const TYPES: Record<SqlDriver["dialect"], Types> = {
  sqlite: { int: "INTEGER", seq: "INTEGER PRIMARY KEY AUTOINCREMENT" },
  postgres: { int: "BIGINT", seq: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY" },
};

/**
 * Versioned schema changes, applied in order and recorded in `schema_migrations`. Append new
 * versions; never edit an applied one. Bodies are TEXT (the JSON exactly as the client saw it).
 */
export const MIGRATIONS: ReadonlyArray<{ readonly version: number; readonly sql: (t: Types) => string }> = [
  {
    version: 1,
    sql: (t) => `
      CREATE TABLE responses (
        id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        previous_response_id TEXT,
        conversation_id TEXT,
        status TEXT NOT NULL,
        background ${t.int} NOT NULL,
        created_at ${t.int} NOT NULL,
        expires_at ${t.int} NOT NULL,
        body TEXT NOT NULL,
        cancel_requested ${t.int} NOT NULL DEFAULT 0,
        lease_holder TEXT,
        lease_until ${t.int}
      );
      CREATE INDEX responses_expiry ON responses (expires_at);
      CREATE INDEX responses_lease ON responses (lease_until) WHERE lease_until IS NOT NULL;
      CREATE TABLE response_items (
        seq ${t.seq},
        response_id TEXT NOT NULL REFERENCES responses (id) ON DELETE CASCADE,
        owner TEXT NOT NULL,
        kind TEXT NOT NULL,
        item_id TEXT NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX response_items_by_response ON response_items (response_id, kind, seq);
      CREATE INDEX response_items_by_item ON response_items (item_id, owner);
      CREATE TABLE response_events (
        response_id TEXT NOT NULL REFERENCES responses (id) ON DELETE CASCADE,
        seq ${t.int} NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (response_id, seq)
      );
      CREATE TABLE conversations (
        id TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        created_at ${t.int} NOT NULL,
        expires_at ${t.int} NOT NULL,
        metadata TEXT NOT NULL
      );
      CREATE INDEX conversations_expiry ON conversations (expires_at);
      CREATE TABLE conversation_items (
        seq ${t.seq},
        conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        item_id TEXT NOT NULL,
        body TEXT NOT NULL
      );
      CREATE INDEX conversation_items_by_conversation ON conversation_items (conversation_id, seq);
      CREATE INDEX conversation_items_by_item ON conversation_items (item_id);
    `,
  },
  {
    // What a conversation's items take (JSON characters), kept as they are added, so its bound is
    // checked without reading them. Conversations from before count from their next append.
    version: 2,
    sql: (t) => `ALTER TABLE conversations ADD COLUMN bytes ${t.int} NOT NULL DEFAULT 0;`,
  },
  {
    version: 3,
    // Per-key usage (one row per key, UTC day and route) and the minute buckets per-key limits read.
    sql: (t) => `
      CREATE TABLE key_usage (
        api_key TEXT NOT NULL,
        day TEXT NOT NULL,
        route TEXT NOT NULL,
        requests ${t.int} NOT NULL DEFAULT 0,
        input_tokens ${t.int} NOT NULL DEFAULT 0,
        cached_input_tokens ${t.int} NOT NULL DEFAULT 0,
        output_tokens ${t.int} NOT NULL DEFAULT 0,
        reasoning_tokens ${t.int} NOT NULL DEFAULT 0,
        tool_calls ${t.int} NOT NULL DEFAULT 0,
        errors ${t.int} NOT NULL DEFAULT 0,
        PRIMARY KEY (api_key, day, route)
      );
      CREATE INDEX key_usage_by_day ON key_usage (day);
      CREATE TABLE key_minutes (
        api_key TEXT NOT NULL,
        minute ${t.int} NOT NULL,
        requests ${t.int} NOT NULL DEFAULT 0,
        tokens ${t.int} NOT NULL DEFAULT 0,
        PRIMARY KEY (api_key, minute)
      );
      CREATE INDEX key_minutes_by_minute ON key_minutes (minute);
    `,
  },
  {
    version: 4,
    // Which replica holds the live codex thread of a conversation (its key is the backend's opaque
    // conversation key; `owner` how other replicas reach the holder), see docs/state.md.
    sql: (t) => `
      CREATE TABLE conversation_owners (
        conversation_key TEXT PRIMARY KEY,
        owner TEXT NOT NULL,
        updated_at ${t.int} NOT NULL
      );
      CREATE INDEX conversation_owners_by_owner ON conversation_owners (owner);
    `,
  },
  {
    version: 5,
    // Rows a replica killed outright left behind are swept by their age.
    sql: () => "CREATE INDEX conversation_owners_by_time ON conversation_owners (updated_at);",
  },
  {
    version: 6,
    // Hosted web searches per key (docs/hosted-tools.md); rows from before count none.
    sql: (t) => `ALTER TABLE key_usage ADD COLUMN web_searches ${t.int} NOT NULL DEFAULT 0;`,
  },
];

/** Brings the schema up to the newest version; safe when several processes start at once. */
export const migrate = async (driver: SqlDriver, now: number): Promise<number> => {
  const types = TYPES[driver.dialect];
  return driver.transaction(
    async (tx) => {
      await tx.exec(
        `CREATE TABLE IF NOT EXISTS schema_migrations (version ${types.int} PRIMARY KEY, applied_at ${types.int} NOT NULL)`,
      );
      const applied = new Set(
        (await tx.all("SELECT version FROM schema_migrations")).map((row) => Number(row.version)),
      );
      let count = 0;
      for (const migration of MIGRATIONS) {
        if (applied.has(migration.version)) continue;
        await tx.exec(migration.sql(types));
        await tx.run("INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", [
          migration.version,
          now,
        ]);
        count++;
      }
      return count;
    },
    { lock: true },
  );
};
