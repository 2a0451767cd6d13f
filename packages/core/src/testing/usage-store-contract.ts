import { describe, expect, it } from "vitest";
import type { UsageRow, UsageStore } from "../ports/usage-store.js";

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
      expect(await store.usage({ key })).toEqual([
        turn(key, "m1", "2026-01-01", {
          requests: 2,
          inputTokens: 200,
          cachedInputTokens: 80,
          outputTokens: 10,
          reasoningTokens: 6,
          toolCalls: 4,
          errors: 1,
        }),
        turn(key, "m2", "2026-01-02"),
      ]);
      expect((await store.usage({ key, route: "m2" })).map((r) => r.day)).toEqual(["2026-01-02"]);
      expect((await store.usage({ key, from: "2026-01-02" })).map((r) => r.route)).toEqual(["m2"]);
      expect((await store.usage({ key, to: "2026-01-01" })).map((r) => r.route)).toEqual(["m1"]);
    });

    it("admits at most rpm requests per key and minute, also when they race", async () => {
      const store = await open();
      const key = fresh("rpm");
      const admitted = await Promise.all(Array.from({ length: 8 }, () => store.admitRequest(key, 1000, 5)));
      expect(admitted.filter(Boolean)).toHaveLength(5);
      expect(await store.admitRequest(key, 1001, 5)).toBe(true);
    });

    it("reports the tokens of the key's minute and day (input, cached included, plus output)", async () => {
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
      expect(await store.keyLoad(key, 501, "2026-02-01")).toEqual({ minuteTokens: 110, dayTokens: 220 });
      expect((await store.keyLoad(key, 2000, "2026-02-02")).minuteTokens).toBe(115);
      expect(await store.keyLoad(fresh("nobody"), 501, "2026-02-01")).toEqual({
        minuteTokens: 0,
        dayTokens: 0,
      });
      expect(await store.purgeMinutesBefore(501)).toBeGreaterThanOrEqual(1);
      expect((await store.keyLoad(key, 500, "2026-02-01")).minuteTokens).toBe(0);
    });
  });
};
