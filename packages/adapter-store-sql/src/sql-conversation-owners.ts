import type { ConversationOwners } from "@proxy/core/gateway";
import type { SqlDriver } from "./sql-driver.js";

/** Keys per lookup statement: a long history's prefixes are asked in slices this long. */
const SLICE = 500;

/** The replicas' shared table of live conversations (migration 4). */
export const createSqlConversationOwners = (db: SqlDriver): ConversationOwners => ({
  async record(key, owner, now) {
    await db.run(
      `INSERT INTO conversation_owners (conversation_key, owner, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (conversation_key) DO UPDATE SET owner = excluded.owner, updated_at = excluded.updated_at`,
      [key, owner, now],
    );
  },
  async lookup(keys) {
    // Newest slice first: the longest owned prefix is what is looked for.
    for (let end = keys.length; end > 0; end -= SLICE) {
      const slice = keys.slice(Math.max(0, end - SLICE), end);
      const rows = await db.all(
        `SELECT conversation_key, owner FROM conversation_owners WHERE conversation_key IN (${slice.map(() => "?").join(", ")})`,
        slice,
      );
      if (rows.length === 0) continue;
      const owners = new Map(rows.map((row) => [String(row.conversation_key), String(row.owner)]));
      for (let i = slice.length - 1; i >= 0; i--) {
        const key = slice[i] as string;
        const owner = owners.get(key);
        if (owner !== undefined) return { key, owner };
      }
    }
    return undefined;
  },
  async release(key, owner) {
    await db.run("DELETE FROM conversation_owners WHERE conversation_key = ? AND owner = ?", [key, owner]);
  },
  releaseOwner: (owner) => db.run("DELETE FROM conversation_owners WHERE owner = ?", [owner]),
  releaseStale: (before) => db.run("DELETE FROM conversation_owners WHERE updated_at < ?", [before]),
});
