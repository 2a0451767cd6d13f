import { openPostgresStore, openSqliteStore, type SqlStore } from "@proxy/adapter-store-sql";
import { createTelemetry, type TurnSummary, type UsageStore } from "@proxy/core/gateway";
import { pino } from "pino";
import { Registry } from "prom-client";
import { afterAll, describe, expect, it } from "vitest";
import { createKeyMetrics } from "../../src/usage/key-metrics.js";
import { createUsageRecorder } from "../../src/usage/usage-recorder.js";
import { sharedPostgres } from "./support.js";

const summary = (name: string, inputTokens: number, requests = 1): TurnSummary => ({
  api: "chat",
  model: "m",
  stream: false,
  outputMode: "openai-json",
  caller: { owner: `owner-${name}`, name },
  telemetry: {
    ...createTelemetry([]),
    usage: { inputTokens: inputTokens * requests, outputTokens: 1, totalTokens: inputTokens + 1 },
  },
});

/** `s` as answered by `route` (the route its turn's stream named). */
const on = (route: string, s: TurnSummary): TurnSummary => ({ ...s, telemetry: { ...s.telemetry, route } });

/** A recorder over a real store, its log lines kept. */
const recorderOver = (store: UsageStore) => {
  const lines: Array<Record<string, unknown>> = [];
  const logger = pino({ level: "info" }, { write: (l: string) => void lines.push(JSON.parse(l)) });
  const recorder = createUsageRecorder({
    store,
    metrics: createKeyMetrics(new Registry()),
    logger,
    tracksMinutes: () => false,
    writesAtOnce: () => false,
    routeOf: () => "codex",
    labelOf: (caller) => caller?.name ?? "anonymous",
    flushMs: 60_000,
  });
  return { recorder, lines };
};

const rowsOf = async (store: UsageStore, key: string) =>
  (await store.usage({ key }, { limit: 100 })).data.map((r) => ({
    route: r.route,
    inputTokens: r.inputTokens,
  }));

const postgres = sharedPostgres();
const opened: SqlStore[] = [];
afterAll(async () => {
  for (const store of opened) await store.close();
  await postgres.stop();
});

const stores: Array<[string, () => Promise<SqlStore>]> = [
  ["SQLite", () => openSqliteStore(":memory:")],
  ["PostgreSQL", async () => openPostgresStore(await postgres.database(`usage_writer_${opened.length}`))],
];

describe.each(stores)("a usage row %s can never hold", { timeout: 60_000 }, (_, open) => {
  it("is dropped and logged; the rows beside it are written, and every later flush too", async () => {
    const store = await open();
    opened.push(store);
    const { recorder, lines } = recorderOver(store);
    // A route the store cannot hold: over PostgreSQL's index row limit and holding a NUL byte, which
    // neither PostgreSQL's TEXT nor (as a NaN count would be) SQLite's NOT NULL columns take.
    const bad = `${"x".repeat(100)}\u0000${Array.from({ length: 3000 }, (_, i) => (i * 7919) % 97).join("")}`;
    recorder.onTurnEnd(on("good", summary("alice", 10)));
    recorder.onTurnEnd(
      on(bad, { ...summary("mallory", 10), telemetry: { ...createTelemetry([]), usage: undefined } }),
    );
    const broken = summary("bob", Number.NaN);
    recorder.onTurnEnd(on("nan", broken));
    recorder.onTurnEnd(on("good", summary("carol", 30)));
    await recorder.settle();
    expect(await rowsOf(store, "alice")).toEqual([{ route: "good", inputTokens: 10 }]);
    expect(await rowsOf(store, "carol")).toEqual([{ route: "good", inputTokens: 30 }]);
    expect(await rowsOf(store, "bob")).toEqual([]);
    const dropped = lines.filter((l) => l.msg === "usage row dropped: the store cannot hold it");
    expect(dropped.map((l) => l.key)).toContain("bob");
    expect(dropped.every((l) => String(l.route ?? "").length <= 300)).toBe(true);

    // Nothing of the dropped rows comes back: the next flushes write the next turns.
    recorder.onTurnEnd(on("good", summary("alice", 5)));
    await recorder.settle();
    recorder.onTurnEnd(on("good", summary("alice", 5)));
    await recorder.close();
    expect(await rowsOf(store, "alice")).toEqual([{ route: "good", inputTokens: 20 }]);
    expect(lines.filter((l) => l.msg === "usage row dropped: the store cannot hold it")).toHaveLength(
      dropped.length,
    );
  });

  it("a failure that may pass keeps the whole batch for the next flush", async () => {
    const store = await open();
    opened.push(store);
    let down = true;
    const flaky: UsageStore = {
      ...store,
      recordUsage: (rows, minutes) =>
        down
          ? Promise.reject(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))
          : store.recordUsage(rows, minutes),
    };
    const { recorder, lines } = recorderOver(flaky);
    recorder.onTurnEnd(on("good", summary("dave", 10)));
    await recorder.settle();
    expect(lines.map((l) => l.msg)).toContain("usage not recorded yet; retrying with the next flush");
    down = false;
    recorder.onTurnEnd(on("good", summary("dave", 10)));
    await recorder.close();
    expect(await rowsOf(store, "dave")).toEqual([{ route: "good", inputTokens: 20 }]);
  });
});
