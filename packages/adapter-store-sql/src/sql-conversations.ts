import { GatewayError } from "@proxy/core";
import type { ResponseStore, StoredConversation, StoredItem } from "@proxy/core/gateway";
import { pageItems, toItem } from "./paging.js";
import type { Row, SqlDriver } from "./sql-driver.js";

const toConversation = (row: Row): StoredConversation => ({
  id: String(row.id),
  owner: String(row.owner),
  createdAt: Number(row.created_at),
  expiresAt: Number(row.expires_at),
  metadata: JSON.parse(String(row.metadata)) as Record<string, string>,
});

type ConversationMethods = Pick<
  ResponseStore,
  | "createConversation"
  | "getConversation"
  | "updateConversation"
  | "deleteConversation"
  | "appendConversationItems"
  | "listConversationItems"
  | "readConversation"
  | "getConversationItem"
  | "deleteConversationItem"
>;

/** What the store keeps per conversation; appends past it are refused. */
export interface ConversationLimits {
  /** JSON characters of a conversation's items, all appends together (default: no bound). */
  readonly maxConversationBytes?: number | undefined;
}

const bodies = (items: ReadonlyArray<StoredItem>): string[] => items.map((item) => JSON.stringify(item.body));

const conversationTooLarge = (id: string, limit: number) =>
  new GatewayError(
    "request_too_large",
    `Conversation '${id}' would grow past ${limit} bytes, the most the store keeps per conversation (PROXY_STORE_MAX_CONVERSATION_BYTES).`,
    { param: "conversation", code: "conversation_too_large" },
  );

/** The conversation half of the SQL ResponseStore. */
export const createSqlConversations = (
  db: SqlDriver,
  limits: ConversationLimits = {},
): ConversationMethods => {
  const limit = limits.maxConversationBytes ?? Number.POSITIVE_INFINITY;
  // SQLite runs one transaction at a time anyway and has no row locks.
  const forUpdate = db.dialect === "postgres" ? " FOR UPDATE" : "";
  const getConversation = async (owner: string, id: string) => {
    const rows = await db.all("SELECT * FROM conversations WHERE id = ? AND owner = ?", [id, owner]);
    return rows[0] === undefined ? undefined : toConversation(rows[0]);
  };
  return {
    getConversation,
    createConversation: (c, items) => {
      const texts = bodies(items);
      const bytes = texts.reduce((n, text) => n + text.length, 0);
      if (bytes > limit) return Promise.reject(conversationTooLarge(c.id, limit));
      return db.transaction(async (tx) => {
        await tx.run(
          "INSERT INTO conversations (id, owner, created_at, expires_at, metadata, bytes) VALUES (?, ?, ?, ?, ?, ?)",
          [c.id, c.owner, c.createdAt, c.expiresAt, JSON.stringify(c.metadata), bytes],
        );
        for (const [i, item] of items.entries())
          await tx.run("INSERT INTO conversation_items (conversation_id, item_id, body) VALUES (?, ?, ?)", [
            c.id,
            item.id,
            texts[i] ?? "null",
          ]);
      });
    },
    async updateConversation(owner, id, metadata) {
      await db.run("UPDATE conversations SET metadata = ? WHERE id = ? AND owner = ?", [
        JSON.stringify(metadata),
        id,
        owner,
      ]);
      return getConversation(owner, id);
    },
    deleteConversation: async (owner, id) =>
      (await db.run("DELETE FROM conversations WHERE id = ? AND owner = ?", [id, owner])) > 0,
    appendConversationItems: (owner, id, items) =>
      db.transaction(async (tx) => {
        // The row lock keeps one batch's items together when several turns append at once.
        const found = await tx.all(`SELECT bytes FROM conversations WHERE id = ? AND owner = ?${forUpdate}`, [
          id,
          owner,
        ]);
        if (found[0] === undefined) return false;
        const texts = bodies(items);
        const bytes = Number(found[0].bytes) + texts.reduce((n, text) => n + text.length, 0);
        if (bytes > limit) throw conversationTooLarge(id, limit);
        for (const [i, item] of items.entries())
          await tx.run("INSERT INTO conversation_items (conversation_id, item_id, body) VALUES (?, ?, ?)", [
            id,
            item.id,
            texts[i] ?? "null",
          ]);
        await tx.run("UPDATE conversations SET bytes = ? WHERE id = ?", [bytes, id]);
        return true;
      }),
    async listConversationItems(owner, id, page) {
      if ((await getConversation(owner, id)) === undefined) return undefined;
      return pageItems(db, "conversation_items", { where: "conversation_id = ?", params: [id] }, page);
    },
    async readConversation(owner, id) {
      if ((await getConversation(owner, id)) === undefined) return undefined;
      const rows = await db.all(
        "SELECT item_id, body FROM conversation_items WHERE conversation_id = ? ORDER BY seq",
        [id],
      );
      return rows.map(toItem);
    },
    async getConversationItem(owner, id, itemId) {
      const rows = await db.all(
        `SELECT i.item_id, i.body FROM conversation_items i JOIN conversations c ON c.id = i.conversation_id
           WHERE i.conversation_id = ? AND c.owner = ? AND i.item_id = ? ORDER BY i.seq LIMIT 1`,
        [id, owner, itemId],
      );
      return rows[0] === undefined ? undefined : toItem(rows[0]);
    },
    async deleteConversationItem(owner, id, itemId) {
      if ((await getConversation(owner, id)) === undefined) return false;
      return db.transaction(async (tx) => {
        const freed = await tx.all(
          "SELECT COALESCE(SUM(LENGTH(body)), 0) AS n FROM conversation_items WHERE conversation_id = ? AND item_id = ?",
          [id, itemId],
        );
        const deleted = await tx.run(
          "DELETE FROM conversation_items WHERE conversation_id = ? AND item_id = ?",
          [id, itemId],
        );
        const n = Number(freed[0]?.n ?? 0);
        await tx.run(
          "UPDATE conversations SET bytes = CASE WHEN bytes > ? THEN bytes - ? ELSE 0 END WHERE id = ?",
          [n, n, id],
        );
        return deleted > 0;
      });
    },
  };
};
