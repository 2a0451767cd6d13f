import type {
  NewResponse,
  ResponseOutcome,
  ResponseStore,
  StoredItem,
  StoredResponse,
  StoredStatus,
  UsageStore,
} from "@proxy/core/gateway";
import { migrate } from "./migrations.js";
import { pageItems, toItem } from "./paging.js";
import { type ConversationLimits, createSqlConversations } from "./sql-conversations.js";
import type { Row, SqlDriver, SqlQuerier } from "./sql-driver.js";
import { createSqlUsageStore } from "./sql-usage-store.js";

const UNFINISHED = "status IN ('queued', 'in_progress')";
/** A chain longer than this is refused rather than walked (it would not fit any context anyway). */
const MAX_CHAIN = 1000;

/** The `previous_response_id` links from one response back to the first, all of one owner. */
const CHAIN = `WITH RECURSIVE chain (id, previous_response_id, depth) AS (
    SELECT id, previous_response_id, 0 FROM responses WHERE id = ? AND owner = ?
    UNION ALL
    SELECT r.id, r.previous_response_id, c.depth + 1 FROM responses r JOIN chain c ON r.id = c.previous_response_id
      WHERE r.owner = ? AND c.depth + 1 < ?
  )`;

const nullableNumber = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);
const nullableString = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

const toResponse = (row: Row): StoredResponse => ({
  id: String(row.id),
  owner: String(row.owner),
  previousResponseId: nullableString(row.previous_response_id),
  conversationId: nullableString(row.conversation_id),
  status: String(row.status) as StoredStatus,
  background: Number(row.background) === 1,
  createdAt: Number(row.created_at),
  expiresAt: Number(row.expires_at),
  body: JSON.parse(String(row.body)) as unknown,
  cancelRequested: Number(row.cancel_requested) === 1,
  leaseHolder: nullableString(row.lease_holder),
  leaseUntil: nullableNumber(row.lease_until),
});

const insertItems = async (
  db: SqlQuerier,
  responseId: string,
  owner: string,
  kind: "input" | "output",
  items: ReadonlyArray<StoredItem>,
) => {
  for (const item of items)
    await db.run(
      "INSERT INTO response_items (response_id, owner, kind, item_id, body) VALUES (?, ?, ?, ?, ?)",
      [responseId, owner, kind, item.id, JSON.stringify(item.body)],
    );
};

const insertEvents = async (db: SqlQuerier, id: string, fromSeq: number, events: ReadonlyArray<unknown>) => {
  for (const [i, event] of events.entries())
    await db.run("INSERT INTO response_events (response_id, seq, body) VALUES (?, ?, ?)", [
      id,
      fromSeq + i,
      JSON.stringify(event),
    ]);
};

/** The ResponseStore over any SqlDriver; `migrate` has brought the schema up to date. */
export const createSqlResponseStore = (db: SqlDriver, limits: ConversationLimits = {}): ResponseStore => {
  const getResponse = async (owner: string, id: string) => {
    const rows = await db.all("SELECT * FROM responses WHERE id = ? AND owner = ?", [id, owner]);
    return rows[0] === undefined ? undefined : toResponse(rows[0]);
  };
  const finish = (
    tx: SqlQuerier,
    id: string,
    outcome: ResponseOutcome,
    guard: string,
    params: Array<string | number>,
  ) =>
    tx.run(
      `UPDATE responses SET status = ?, body = ?, lease_holder = NULL, lease_until = NULL WHERE id = ? AND ${UNFINISHED} AND ${guard}`,
      [outcome.status, JSON.stringify(outcome.body), id, ...params],
    );

  return {
    createResponse: (r: NewResponse) =>
      db.transaction(async (tx) => {
        await tx.run(
          `INSERT INTO responses (id, owner, previous_response_id, conversation_id, status, background, created_at,
             expires_at, body, lease_holder, lease_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          [
            r.id,
            r.owner,
            r.previousResponseId,
            r.conversationId,
            r.status,
            r.background ? 1 : 0,
            r.createdAt,
            r.expiresAt,
            JSON.stringify(r.body),
            r.lease?.holder ?? null,
            r.lease?.until ?? null,
          ],
        );
        await insertItems(tx, r.id, r.owner, "input", r.input);
        await insertItems(tx, r.id, r.owner, "output", r.output);
        await insertEvents(tx, r.id, 0, r.events);
      }),
    getResponse,
    deleteResponse: async (owner, id) =>
      (await db.run("DELETE FROM responses WHERE id = ? AND owner = ?", [id, owner])) > 0,
    async readChain(owner, id) {
      // Two queries whatever the length: the links (newest first), then every item of them.
      const responses = (
        await db.all(`${CHAIN} SELECT r.* FROM chain c JOIN responses r ON r.id = c.id ORDER BY c.depth`, [
          id,
          owner,
          owner,
          MAX_CHAIN,
        ])
      ).map(toResponse);
      const oldest = responses.at(-1);
      // A missing (deleted, expired, foreign) link, or a chain too long to walk: no chain.
      if (oldest === undefined || oldest.previousResponseId !== null) return undefined;
      const items = await db.all(
        `${CHAIN} SELECT i.response_id, i.kind, i.item_id, i.body FROM chain c JOIN response_items i ON i.response_id = c.id ORDER BY i.seq`,
        [id, owner, owner, MAX_CHAIN],
      );
      const byResponse = new Map(
        responses.map((response) => [
          response.id,
          { response, input: [] as StoredItem[], output: [] as StoredItem[] },
        ]),
      );
      for (const row of items)
        byResponse
          .get(String(row.response_id))
          ?.[row.kind === "input" ? "input" : "output"].push(toItem(row));
      return [...byResponse.values()].reverse();
    },
    async listInputItems(owner, id, page) {
      if ((await getResponse(owner, id)) === undefined) return undefined;
      return pageItems(
        db,
        "response_items",
        { where: "response_id = ? AND kind = 'input'", params: [id] },
        page,
      );
    },
    async getItem(owner, itemId) {
      const own = await db.all(
        "SELECT body FROM response_items WHERE item_id = ? AND owner = ? ORDER BY seq DESC LIMIT 1",
        [itemId, owner],
      );
      const rows =
        own.length > 0
          ? own
          : await db.all(
              `SELECT i.body FROM conversation_items i JOIN conversations c ON c.id = i.conversation_id
                 WHERE i.item_id = ? AND c.owner = ? ORDER BY i.seq DESC LIMIT 1`,
              [itemId, owner],
            );
      return rows[0] === undefined ? undefined : (JSON.parse(String(rows[0].body)) as unknown);
    },

    appendEvents: (id, fromSeq, events) => db.transaction((tx) => insertEvents(tx, id, fromSeq, events)),
    async readEvents(owner, id, afterSeq) {
      const rows = await db.all(
        `SELECT e.seq, e.body FROM response_events e JOIN responses r ON r.id = e.response_id
           WHERE e.response_id = ? AND r.owner = ? AND e.seq > ? ORDER BY e.seq`,
        [id, owner, afterSeq],
      );
      return rows.map((row) => ({ seq: Number(row.seq), body: JSON.parse(String(row.body)) as unknown }));
    },

    async renewLease(id, holder, until) {
      const rows = await db.all(
        `UPDATE responses SET lease_until = ? WHERE id = ? AND lease_holder = ? AND ${UNFINISHED} RETURNING cancel_requested`,
        [until, id, holder],
      );
      return rows[0] === undefined ? undefined : { cancelRequested: Number(rows[0].cancel_requested) === 1 };
    },
    async markInProgress(id, holder, body) {
      const changed = await db.run(
        "UPDATE responses SET status = 'in_progress', body = ? WHERE id = ? AND lease_holder = ? AND status = 'queued'",
        [JSON.stringify(body), id, holder],
      );
      return changed > 0;
    },
    async requestCancel(owner, id) {
      await db.run(`UPDATE responses SET cancel_requested = 1 WHERE id = ? AND owner = ? AND ${UNFINISHED}`, [
        id,
        owner,
      ]);
      return getResponse(owner, id);
    },
    finishResponse: (id, holder, outcome) =>
      db.transaction(async (tx) => {
        if ((await finish(tx, id, outcome, "lease_holder = ?", [holder])) === 0) return false;
        const rows = await tx.all("SELECT owner FROM responses WHERE id = ?", [id]);
        await insertItems(tx, id, String(rows[0]?.owner), "output", outcome.output);
        if (outcome.events !== undefined)
          await insertEvents(tx, id, outcome.events.fromSeq, outcome.events.events);
        return true;
      }),
    async expiredLeases(now) {
      const rows = await db.all(`SELECT * FROM responses WHERE ${UNFINISHED} AND lease_until < ?`, [now]);
      return rows.map(toResponse);
    },
    failExpired: (id, now, outcome, events) =>
      db.transaction(async (tx) => {
        if ((await finish(tx, id, outcome, "lease_until < ?", [now])) === 0) return false;
        const last = await tx.all("SELECT MAX(seq) AS seq FROM response_events WHERE response_id = ?", [id]);
        const rows = await tx.all("SELECT owner FROM responses WHERE id = ?", [id]);
        await insertItems(tx, id, String(rows[0]?.owner), "output", outcome.output);
        const next = nullableNumber(last[0]?.seq) === null ? 0 : Number(last[0]?.seq) + 1;
        await insertEvents(tx, id, next, events(next));
        return true;
      }),

    ...createSqlConversations(db, limits),

    async purgeExpired(now) {
      const responses = await db.run("DELETE FROM responses WHERE expires_at < ?", [now]);
      const conversations = await db.run("DELETE FROM conversations WHERE expires_at < ?", [now]);
      return responses + conversations;
    },
    close: () => db.close(),
  };
};

/** Stored responses and conversations, and per-key usage, in one database. */
export type SqlStore = ResponseStore & UsageStore;

/** Opens a driver, migrates it and returns the store over it. */
export const openSqlStore = async (
  db: SqlDriver,
  now: number,
  limits: ConversationLimits = {},
): Promise<SqlStore> => {
  try {
    await migrate(db, now);
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
  return { ...createSqlResponseStore(db, limits), ...createSqlUsageStore(db) };
};
