import type { ConversationOwners } from "@proxy/core/gateway";
import type { SqlDriver } from "./sql-driver.js";

/** Keys per statement: a long history's prefixes are asked, and many rows written, in slices this long. */
const SLICE = 500;

const placeholders = (n: number, each = "?") => Array.from({ length: n }, () => each).join(", ");

/** `keys` in slices of SLICE, newest (last) slice first. */
function* slicesFromEnd(keys: ReadonlyArray<string>): Generator<ReadonlyArray<string>> {
  for (let end = keys.length; end > 0; end -= SLICE) yield keys.slice(Math.max(0, end - SLICE), end);
}

/** The replicas' shared table of live conversations (migration 4). */
export const createSqlConversationOwners = (db: SqlDriver): ConversationOwners => ({
  async record(keys, owner, now) {
    // One statement per slice; a key twice in one upsert is an error in PostgreSQL.
    for (const slice of slicesFromEnd([...new Set(keys)]))
      await db.run(
        `INSERT INTO conversation_owners (conversation_key, owner, updated_at) VALUES ${placeholders(slice.length, "(?, ?, ?)")}
           ON CONFLICT (conversation_key) DO UPDATE SET owner = excluded.owner, updated_at = excluded.updated_at`,
        slice.flatMap((key) => [key, owner, now]),
      );
  },
  async lookup(keys) {
    // Newest slice first: the longest owned prefix is what is looked for.
    for (const slice of slicesFromEnd(keys)) {
      const rows = await db.all(
        `SELECT conversation_key, owner FROM conversation_owners WHERE conversation_key IN (${placeholders(slice.length)})`,
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
  async release(keys, owner) {
    for (const slice of slicesFromEnd(keys))
      await db.run(
        `DELETE FROM conversation_owners WHERE owner = ? AND conversation_key IN (${placeholders(slice.length)})`,
        [owner, ...slice],
      );
  },
  releaseOwner: (owner) => db.run("DELETE FROM conversation_owners WHERE owner = ?", [owner]),
  releaseStale: (before) => db.run("DELETE FROM conversation_owners WHERE updated_at < ?", [before]),
});
