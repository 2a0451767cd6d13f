import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NewResponse, ResponseStore, StoredItem } from "../ports/response-store.js";

const T0 = 1_700_000_000_000;
const DAY = 86_400_000;
const ALICE = "owner-alice";
const MALLORY = "owner-mallory";

/** Ids unique across the cases of one run (the store may be shared by every case). */
const fresh = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll("-", "")}`;

const item = (id: string, text: string): StoredItem => ({
  id,
  body: { type: "message", id, role: "user", content: [{ type: "input_text", text }] },
});

const response = (overrides: Partial<NewResponse> & Pick<NewResponse, "id">): NewResponse => ({
  owner: ALICE,
  previousResponseId: null,
  conversationId: null,
  status: "completed",
  background: false,
  createdAt: T0,
  expiresAt: T0 + 30 * DAY,
  body: { id: overrides.id, object: "response", status: overrides.status ?? "completed" },
  input: [],
  output: [],
  events: [],
  ...overrides,
});

const idsOf = (items: ReadonlyArray<StoredItem>) => items.map((i) => i.id);

/**
 * The `ResponseStore` contract every store adapter runs against its real database: ownership on
 * every read and write, chains, paging, events, leases, conversations, expiry, concurrency.
 */
export const describeResponseStoreContract = (name: string, open: () => Promise<ResponseStore>): void => {
  describe(`ResponseStore contract: ${name}`, () => {
    let store: ResponseStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store?.close();
    });

    it("stores a response with its items and reads it back exactly", async () => {
      const id = fresh("resp");
      const body = { id, object: "response", nested: { unicode: "ünï 🙂", n: 1.5, list: [null, true] } };
      await store.createResponse(
        response({ id, body, input: [item(fresh("msg"), "hi")], output: [item(fresh("msg"), "ho")] }),
      );
      const got = await store.getResponse(ALICE, id);
      expect(got).toMatchObject({ id, owner: ALICE, status: "completed", background: false, createdAt: T0 });
      expect(got?.body).toEqual(body);
      expect(await store.getResponse(ALICE, fresh("resp"))).toBeUndefined();
      await expect(store.createResponse(response({ id }))).rejects.toThrow();
    });

    it("hides everything one owner stored from another owner", async () => {
      const id = fresh("resp");
      const input = item(fresh("msg"), "secret");
      await store.createResponse(response({ id, input: [input], events: [{ type: "response.created" }] }));
      expect(await store.getResponse(MALLORY, id)).toBeUndefined();
      expect(await store.readChain(MALLORY, id)).toBeUndefined();
      expect(await store.listInputItems(MALLORY, id, { limit: 10, order: "asc" })).toBeUndefined();
      expect(await store.getItem(MALLORY, input.id)).toBeUndefined();
      expect(await store.readEvents(MALLORY, id, -1)).toEqual([]);
      expect(await store.requestCancel(MALLORY, id)).toBeUndefined();
      expect(await store.deleteResponse(MALLORY, id)).toBe(false);
      expect(await store.getResponse(ALICE, id)).toBeDefined();
      expect(await store.getItem(ALICE, input.id)).toEqual(input.body);
      const conversation = fresh("conv");
      await store.createConversation(
        { id: conversation, owner: ALICE, createdAt: T0, expiresAt: T0 + DAY, metadata: {} },
        [input],
      );
      expect(await store.getConversation(MALLORY, conversation)).toBeUndefined();
      expect(await store.updateConversation(MALLORY, conversation, { x: "y" })).toBeUndefined();
      expect(await store.appendConversationItems(MALLORY, conversation, [item(fresh("msg"), "x")])).toBe(
        false,
      );
      expect(await store.readConversation(MALLORY, conversation)).toBeUndefined();
      expect(await store.getConversationItem(MALLORY, conversation, input.id)).toBeUndefined();
      expect(await store.deleteConversationItem(MALLORY, conversation, input.id)).toBe(false);
      expect(await store.deleteConversation(MALLORY, conversation)).toBe(false);
      expect(await store.readConversation(ALICE, conversation)).toHaveLength(1);
    });

    it("reads a chain oldest first; branches from one response stay apart; a missing link fails", async () => {
      const root = fresh("resp");
      await store.createResponse(
        response({ id: root, input: [item("a1", "one")], output: [item("a2", "two")] }),
      );
      const [left, right] = [fresh("resp"), fresh("resp")];
      await Promise.all([
        store.createResponse(
          response({
            id: left,
            previousResponseId: root,
            input: [item("l1", "L")],
            output: [item("l2", "LL")],
          }),
        ),
        store.createResponse(
          response({
            id: right,
            previousResponseId: root,
            input: [item("r1", "R")],
            output: [item("r2", "RR")],
          }),
        ),
      ]);
      const chain = await store.readChain(ALICE, left);
      expect(chain?.map((l) => l.response.id)).toEqual([root, left]);
      expect(chain?.map((l) => [idsOf(l.input), idsOf(l.output)])).toEqual([
        [["a1"], ["a2"]],
        [["l1"], ["l2"]],
      ]);
      expect((await store.readChain(ALICE, right))?.map((l) => l.response.id)).toEqual([root, right]);
      expect(await store.deleteResponse(ALICE, root)).toBe(true);
      expect(await store.readChain(ALICE, left)).toBeUndefined();
      expect(await store.getResponse(ALICE, left)).toBeDefined();
    });

    it("pages input items by limit, order and after/before cursors", async () => {
      const id = fresh("resp");
      const items = ["i0", "i1", "i2", "i3", "i4"].map((n) => item(`${id}_${n}`, n));
      await store.createResponse(response({ id, input: items, output: [item(`${id}_out`, "o")] }));
      const all = idsOf(items);
      const page = (q: Parameters<ResponseStore["listInputItems"]>[2]) => store.listInputItems(ALICE, id, q);
      expect(await page({ limit: 10, order: "asc" })).toEqual({ data: items, hasMore: false });
      expect(idsOf((await page({ limit: 2, order: "asc" }))?.data ?? [])).toEqual(all.slice(0, 2));
      expect((await page({ limit: 2, order: "asc" }))?.hasMore).toBe(true);
      expect(idsOf((await page({ limit: 2, order: "asc", after: all[1] }))?.data ?? [])).toEqual(
        all.slice(2, 4),
      );
      expect(idsOf((await page({ limit: 10, order: "desc" }))?.data ?? [])).toEqual([...all].reverse());
      expect(idsOf((await page({ limit: 10, order: "desc", after: all[3] }))?.data ?? [])).toEqual([
        all[2],
        all[1],
        all[0],
      ]);
      expect(
        idsOf((await page({ limit: 10, order: "asc", after: all[0], before: all[3] }))?.data ?? []),
      ).toEqual([all[1], all[2]]);
      expect(await page({ limit: 1, order: "asc", after: all[4] })).toEqual({ data: [], hasMore: false });
    });

    it("appends and replays stream events after a sequence number", async () => {
      const id = fresh("resp");
      await store.createResponse(response({ id, events: [{ n: 0 }, { n: 1 }] }));
      await store.appendEvents(id, 2, [{ n: 2 }, { n: 3 }]);
      expect((await store.readEvents(ALICE, id, -1)).map((e) => [e.seq, e.body])).toEqual([
        [0, { n: 0 }],
        [1, { n: 1 }],
        [2, { n: 2 }],
        [3, { n: 3 }],
      ]);
      expect((await store.readEvents(ALICE, id, 1)).map((e) => e.seq)).toEqual([2, 3]);
      await expect(store.appendEvents(id, 3, [{ n: "dup" }])).rejects.toThrow();
    });

    it("leases: renewed by their holder, cancel requests seen, finished once, expired ones failed by one caller", async () => {
      const id = fresh("resp");
      await store.createResponse(
        response({
          id,
          status: "queued",
          background: true,
          lease: { holder: "replica-a", until: T0 + 30_000 },
        }),
      );
      expect(await store.renewLease(id, "replica-a", T0 + 60_000)).toEqual({ cancelRequested: false });
      expect(await store.renewLease(id, "replica-b", T0 + 60_000)).toBeUndefined();
      // queued → in_progress only by its holder, and only once.
      expect(await store.markInProgress(id, "replica-b", { id, status: "in_progress" })).toBe(false);
      expect((await store.getResponse(ALICE, id))?.status).toBe("queued");
      expect(await store.markInProgress(id, "replica-a", { id, status: "in_progress" })).toBe(true);
      expect(await store.getResponse(ALICE, id)).toMatchObject({
        status: "in_progress",
        body: { status: "in_progress" },
      });
      expect(await store.markInProgress(id, "replica-a", { id, status: "in_progress" })).toBe(false);
      expect((await store.requestCancel(ALICE, id))?.cancelRequested).toBe(true);
      expect(await store.renewLease(id, "replica-a", T0 + 90_000)).toEqual({ cancelRequested: true });
      const outcome = {
        status: "cancelled" as const,
        body: { id, status: "cancelled" },
        output: [item(fresh("msg"), "x")],
      };
      expect(await store.finishResponse(id, "replica-b", outcome)).toBe(false);
      expect(
        await store.finishResponse(id, "replica-a", {
          ...outcome,
          events: { fromSeq: 0, events: [{ n: "end" }] },
        }),
      ).toBe(true);
      expect((await store.readEvents(ALICE, id, -1)).map((e) => e.body)).toEqual([{ n: "end" }]);
      expect(await store.finishResponse(id, "replica-a", outcome)).toBe(false);
      expect(await store.getResponse(ALICE, id)).toMatchObject({ status: "cancelled", leaseHolder: null });
      expect(await store.renewLease(id, "replica-a", T0 + 99_000)).toBeUndefined();

      const dead = fresh("resp");
      const live = fresh("resp");
      await store.createResponse(
        response({
          id: dead,
          status: "in_progress",
          background: true,
          lease: { holder: "gone", until: T0 + 1000 },
          events: [{ n: 0 }],
        }),
      );
      await store.createResponse(
        response({
          id: live,
          status: "in_progress",
          background: true,
          lease: { holder: "alive", until: T0 + 50_000 },
        }),
      );
      const expired = (await store.expiredLeases(T0 + 2000)).map((r) => r.id);
      expect(expired).toContain(dead);
      expect(expired).not.toContain(live);
      const failed = { status: "failed" as const, body: { id: dead, status: "failed" }, output: [] };
      const [first, second] = await Promise.all([
        store.failExpired(dead, T0 + 2000, failed, (seq) => [{ n: "failed", seq }]),
        store.failExpired(dead, T0 + 2000, failed, (seq) => [{ n: "failed", seq }]),
      ]);
      expect([first, second].filter(Boolean)).toHaveLength(1);
      expect(await store.failExpired(live, T0 + 2000, failed, () => [])).toBe(false);
      expect((await store.readEvents(ALICE, dead, -1)).map((e) => [e.seq, e.body])).toEqual([
        [0, { n: 0 }],
        [1, { n: "failed", seq: 1 }],
      ]);
      expect((await store.getResponse(ALICE, dead))?.status).toBe("failed");
      expect(await store.renewLease(dead, "gone", T0 + 60_000)).toBeUndefined();
    });

    it("conversations: create, update metadata, append in order (also concurrently), page, get and delete items", async () => {
      const id = fresh("conv");
      const first = item(`${id}_0`, "first");
      await store.createConversation(
        { id, owner: ALICE, createdAt: T0, expiresAt: T0 + DAY, metadata: { a: "1" } },
        [first],
      );
      expect(await store.getConversation(ALICE, id)).toEqual({
        id,
        owner: ALICE,
        createdAt: T0,
        expiresAt: T0 + DAY,
        metadata: { a: "1" },
      });
      expect((await store.updateConversation(ALICE, id, { b: "2" }))?.metadata).toEqual({ b: "2" });
      const batches = [1, 2, 3, 4].map((n) => [item(`${id}_${n}a`, "x"), item(`${id}_${n}b`, "y")]);
      expect(await Promise.all(batches.map((b) => store.appendConversationItems(ALICE, id, b)))).toEqual([
        true,
        true,
        true,
        true,
      ]);
      const all = (await store.readConversation(ALICE, id)) ?? [];
      expect(all).toHaveLength(9);
      for (const batch of batches) {
        const at = all.findIndex((i) => i.id === batch[0]?.id);
        expect(all[at + 1]?.id).toBe(batch[1]?.id);
      }
      const page = await store.listConversationItems(ALICE, id, { limit: 3, order: "desc" });
      expect(page?.hasMore).toBe(true);
      expect(idsOf(page?.data ?? [])).toEqual(idsOf(all.slice(-3).reverse()));
      expect(await store.getConversationItem(ALICE, id, first.id)).toEqual(first);
      expect(await store.getItem(ALICE, first.id)).toEqual(first.body);
      expect(await store.deleteConversationItem(ALICE, id, first.id)).toBe(true);
      expect(await store.getConversationItem(ALICE, id, first.id)).toBeUndefined();
      expect(await store.deleteConversation(ALICE, id)).toBe(true);
      expect(await store.getConversation(ALICE, id)).toBeUndefined();
      expect(await store.appendConversationItems(ALICE, id, [item(fresh("msg"), "late")])).toBe(false);
    });

    it("purges what expired, with its items and events, and keeps the rest", async () => {
      const [old, kept] = [fresh("resp"), fresh("resp")];
      const oldItem = item(fresh("msg"), "old");
      await store.createResponse(
        response({ id: old, expiresAt: T0 + 10, input: [oldItem], events: [{ n: 0 }] }),
      );
      await store.createResponse(response({ id: kept, expiresAt: T0 + 10 * DAY }));
      const conversation = fresh("conv");
      await store.createConversation(
        { id: conversation, owner: ALICE, createdAt: T0, expiresAt: T0 + 10, metadata: {} },
        [],
      );
      expect(await store.purgeExpired(T0 + 1000)).toBeGreaterThanOrEqual(2);
      expect(await store.getResponse(ALICE, old)).toBeUndefined();
      expect(await store.getItem(ALICE, oldItem.id)).toBeUndefined();
      expect(await store.readEvents(ALICE, old, -1)).toEqual([]);
      expect(await store.getConversation(ALICE, conversation)).toBeUndefined();
      expect(await store.getResponse(ALICE, kept)).toBeDefined();
    });
  });
};
