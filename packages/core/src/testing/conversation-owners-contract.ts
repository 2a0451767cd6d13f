import { describe, expect, it } from "vitest";
import type { ConversationOwners } from "../ports/conversation-owners.js";

const fresh = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

/** What every ConversationOwners must do (run in memory and by the SQLite and PostgreSQL adapters). */
export const describeConversationOwnersContract = (
  name: string,
  open: () => Promise<ConversationOwners>,
): void => {
  describe(`ConversationOwners contract: ${name}`, () => {
    it("finds the longest owned prefix, and nothing for keys nobody holds", async () => {
      const owners = await open();
      const [k0, k1, k2, k3] = [fresh("k0"), fresh("k1"), fresh("k2"), fresh("k3")];
      expect(await owners.lookup([k0, k1, k2])).toBeUndefined();
      expect(await owners.lookup([])).toBeUndefined();
      await owners.record([k1], "http://a", 1);
      await owners.record([k2], "http://b", 2);
      expect(await owners.lookup([k0, k1, k2, k3])).toEqual({ key: k2, owner: "http://b" });
      expect(await owners.lookup([k0, k1])).toEqual({ key: k1, owner: "http://a" });
    });

    it("a newer record replaces the owner; a release by the old owner keeps the new one", async () => {
      const owners = await open();
      const key = fresh("k");
      await owners.record([key], "http://a", 1);
      await owners.record([key], "http://b", 2);
      await owners.release([key], "http://a");
      expect(await owners.lookup([key])).toEqual({ key, owner: "http://b" });
      await owners.release([key], "http://b");
      expect(await owners.lookup([key])).toBeUndefined();
    });

    it("records and releases several keys at once, a key given twice once", async () => {
      const owners = await open();
      const [k0, k1, k2, k3] = [fresh("k0"), fresh("k1"), fresh("k2"), fresh("k3")];
      await owners.record([k1, k2, k1, k3], "http://a", 1);
      await owners.record([], "http://a", 1);
      expect(await owners.lookup([k0, k1, k2])).toEqual({ key: k2, owner: "http://a" });
      await owners.record([k3], "http://b", 2);
      // Only a's own rows go: k3 is b's now.
      await owners.release([k2, k3, k0], "http://a");
      await owners.release([], "http://a");
      expect(await owners.lookup([k1, k2])).toEqual({ key: k1, owner: "http://a" });
      expect(await owners.lookup([k2, k3])).toEqual({ key: k3, owner: "http://b" });
      // More keys than one statement takes.
      const many = Array.from({ length: 1203 }, (_, i) => `${k0}-${i}`);
      await owners.record(many, "http://c", 3);
      expect(await owners.lookup([k1, many[0] as string])).toEqual({ key: many[0], owner: "http://c" });
      expect(await owners.lookup([many.at(-1) as string, k1])).toEqual({ key: k1, owner: "http://a" });
      await owners.release(many, "http://c");
      expect(await owners.lookup(many)).toBeUndefined();
    });

    it("releases the records made before a time, whoever made them, and keeps the newer", async () => {
      const owners = await open();
      const [old, renewed, recent] = [fresh("old"), fresh("renewed"), fresh("recent")];
      await owners.record([old], "http://a", 1_000);
      await owners.record([renewed], "http://b", 1_000);
      await owners.record([recent], "http://c", 5_000);
      await owners.record([renewed], "http://b", 6_000);
      expect(await owners.releaseStale(2_000)).toBe(1);
      expect(await owners.lookup([old])).toBeUndefined();
      expect(await owners.lookup([renewed])).toEqual({ key: renewed, owner: "http://b" });
      expect(await owners.lookup([recent])).toEqual({ key: recent, owner: "http://c" });
    });

    it("releases everything one owner holds, and only that", async () => {
      const owners = await open();
      const [a, b, c] = [fresh("a"), fresh("b"), fresh("c")];
      const gone = `http://${fresh("gone")}`;
      await owners.record([a], gone, 1);
      await owners.record([b], gone, 1);
      await owners.record([c], "http://kept", 1);
      expect(await owners.releaseOwner(gone)).toBe(2);
      expect(await owners.lookup([a, b])).toBeUndefined();
      expect(await owners.lookup([c])).toEqual({ key: c, owner: "http://kept" });
    });
  });
};
