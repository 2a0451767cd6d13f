import { describe, expect, it } from "vitest";
import {
  type UsageCursor,
  type UsageFilter,
  type UsageRow,
  type UsageStore,
  UsageWriteRejected,
} from "../ports/usage-store.js";

const PAGE = { limit: 100 } as const;

const fresh = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

const turn = (key: string, route: string, day: string, overrides: Partial<UsageRow> = {}): UsageRow => ({
  key,
  route,
  day,
  requests: 1,
  inputTokens: 100,
  cachedInputTokens: 40,
  outputTokens: 10,
  reasoningTokens: 3,
  toolCalls: 2,
  webSearches: 1,
  errors: 0,
  ...overrides,
});

/** What every UsageStore must do (run by the SQLite and PostgreSQL adapters). */
export const describeUsageStoreContract = (name: string, open: () => Promise<UsageStore>): void => {
  describe(`UsageStore contract: ${name}`, () => {
    it("adds turns into one row per key, route and day, and filters by each", async () => {
      const store = await open();
      const key = fresh("alice");
      await store.recordUsage([turn(key, "m1", "2026-01-01")]);
      await store.recordUsage([
        turn(key, "m1", "2026-01-01", { errors: 1, outputTokens: 0 }),
        turn(key, "m2", "2026-01-02"),
        turn(fresh("bob"), "m1", "2026-01-01"),
      ]);
      const m1 = {
        requests: 2,
        inputTokens: 200,
        cachedInputTokens: 80,
        outputTokens: 10,
        reasoningTokens: 6,
        toolCalls: 4,
        webSearches: 2,
        errors: 1,
      };
      expect((await store.usage({ key }, PAGE)).data).toEqual([
        turn(key, "m1", "2026-01-01", m1),
        turn(key, "m2", "2026-01-02"),
      ]);
      const list = async (filter: UsageFilter) => (await store.usage(filter, PAGE)).data;
      expect((await list({ key, route: "m2" })).map((r) => r.day)).toEqual(["2026-01-02"]);
      expect((await list({ key, from: "2026-01-02" })).map((r) => r.route)).toEqual(["m2"]);
      expect((await list({ key, to: "2026-01-01" })).map((r) => r.route)).toEqual(["m1"]);
      expect(await store.usageTotals({ key, route: "m1" })).toEqual(m1);
    });

    it("lists in pages: each starts after the cursor, in day, key, route order, none twice", async () => {
      const store = await open();
      const key = fresh("pages");
      const other = `${key}-b`;
      const rows = [
        turn(key, "m1", "2026-03-01"),
        turn(other, "m1", "2026-03-01"),
        turn(key, "m2", "2026-03-01"),
        turn(key, "m1", "2026-03-02"),
        turn(other, "m0", "2026-03-02"),
      ];
      await store.recordUsage(rows);
      const filter = { from: "2026-03-01", to: "2026-03-02" };
      const seen: string[] = [];
      let after: UsageCursor | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await store.usage(filter, { limit: 2, after });
        seen.push(...page.data.map((r) => `${r.day} ${r.key} ${r.route}`));
        const last = page.data.at(-1);
        if (!page.hasMore || last === undefined) break;
        after = last;
      }
      const mine = seen.filter((s) => s.includes(key));
      expect(mine).toEqual([
        `2026-03-01 ${key} m1`,
        `2026-03-01 ${key} m2`,
        `2026-03-01 ${other} m1`,
        `2026-03-02 ${key} m1`,
        `2026-03-02 ${other} m0`,
      ]);
      expect(new Set(seen).size).toBe(seen.length);
      expect((await store.usageTotals(filter)).requests).toBeGreaterThanOrEqual(rows.length);
    });

    it("forgets the rows of days before a day", async () => {
      const store = await open();
      const key = fresh("old");
      await store.recordUsage([turn(key, "m1", "2020-01-01"), turn(key, "m1", "2020-01-03")]);
      expect(await store.purgeUsageBefore("2020-01-02")).toBeGreaterThanOrEqual(1);
      expect((await store.usage({ key }, PAGE)).data.map((r) => r.day)).toEqual(["2020-01-03"]);
    });

    it("rejects a batch holding a row it can never write as UsageWriteRejected, writing none of it", async () => {
      const store = await open();
      const key = fresh("bad");
      const write = store.recordUsage([
        turn(key, "m1", "2026-04-01"),
        turn(key, "m2", "2026-04-01", { requests: Number.NaN }),
      ]);
      await expect(write).rejects.toBeInstanceOf(UsageWriteRejected);
      expect((await store.usage({ key }, PAGE)).data).toEqual([]);
      await store.recordUsage([turn(key, "m1", "2026-04-01")]);
      expect((await store.usage({ key }, PAGE)).data).toHaveLength(1);
    });

    it("admits at most rpm requests per key and minute, also when they race", async () => {
      const store = await open();
      const key = fresh("rpm");
      const admitted = await Promise.all(Array.from({ length: 8 }, () => store.admitRequest(key, 1000, 5)));
      expect(admitted.filter(Boolean)).toHaveLength(5);
      expect(await store.admitRequest(key, 1001, 5)).toBe(true);
    });

    it("reports the tokens of the key's minute and day (input, cached included, plus output), and the day's searches", async () => {
      const store = await open();
      const key = fresh("load");
      await store.recordUsage(
        [turn(key, "m1", "2026-02-01"), turn(key, "m2", "2026-02-01")],
        [
          { key, minute: 500, tokens: 110 },
          { key, minute: 501, tokens: 110 },
        ],
      );
      await store.recordUsage([turn(key, "m2", "2026-02-02")], [{ key, minute: 2000, tokens: 110 }]);
      await store.recordUsage([], [{ key, minute: 2000, tokens: 5 }]);
      expect(await store.keyLoad(key, 501, "2026-02-01")).toEqual({
        minuteTokens: 110,
        dayTokens: 220,
        daySearches: 2,
      });
      expect((await store.keyLoad(key, 2000, "2026-02-02")).minuteTokens).toBe(115);
      expect(await store.keyLoad(fresh("nobody"), 501, "2026-02-01")).toEqual({
        minuteTokens: 0,
        dayTokens: 0,
        daySearches: 0,
      });
      expect(await store.purgeMinutesBefore(501)).toBeGreaterThanOrEqual(1);
      expect((await store.keyLoad(key, 500, "2026-02-01")).minuteTokens).toBe(0);
    });
  });
};
