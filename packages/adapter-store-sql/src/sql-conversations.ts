import type { ResponseStore, StoredConversation } from "@proxy/core";
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

/** The conversation half of the SQL ResponseStore. */
export const createSqlConversations = (db: SqlDriver): ConversationMethods => {
  // SQLite runs one transaction at a time anyway and has no row locks.
  const forUpdate = db.dialect === "postgres" ? " FOR UPDATE" : "";
  const getConversation = async (owner: string, id: string) => {
    const rows = await db.all("SELECT * FROM conversations WHERE id = ? AND owner = ?", [id, owner]);
    return rows[0] === undefined ? undefined : toConversation(rows[0]);
  };
  return {
    getConversation,
    createConversation: (c, items) =>
      db.transaction(async (tx) => {
        await tx.run(
          "INSERT INTO conversations (id, owner, created_at, expires_at, metadata) VALUES (?, ?, ?, ?, ?)",
          [c.id, c.owner, c.createdAt, c.expiresAt, JSON.stringify(c.metadata)],
        );
        for (const item of items)
          await tx.run("INSERT INTO conversation_items (conversation_id, item_id, body) VALUES (?, ?, ?)", [
            c.id,
            item.id,
            JSON.stringify(item.body),
          ]);
      }),
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
        const found = await tx.all(`SELECT id FROM conversations WHERE id = ? AND owner = ?${forUpdate}`, [
          id,
          owner,
        ]);
        if (found.length === 0) return false;
        for (const item of items)
          await tx.run("INSERT INTO conversation_items (conversation_id, item_id, body) VALUES (?, ?, ?)", [
            id,
            item.id,
            JSON.stringify(item.body),
          ]);
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
      return (
        (await db.run("DELETE FROM conversation_items WHERE conversation_id = ? AND item_id = ?", [
          id,
          itemId,
        ])) > 0
      );
    },
  };
};
