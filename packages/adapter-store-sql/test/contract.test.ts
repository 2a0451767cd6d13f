import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { UsageWriteRejected } from "@proxy/core/gateway";
import {
  describeConversationOwnersContract,
  describeResponseStoreContract,
  describeUsageStoreContract,
} from "@proxy/core/testing";
import { afterAll, describe, expect, it } from "vitest";
import { MIGRATIONS, migrate, openPostgresStore, openSqliteDriver, openSqliteStore } from "../src/index.js";
import { type PostgresServer, startPostgresServer } from "../src/testing/index.js";

const dirs: string[] = [];
let postgres: PostgresServer | undefined;
afterAll(async () => {
  await postgres?.stop();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describeResponseStoreContract("SQLite file", async () => {
  const dir = await mkdtemp(join(tmpdir(), "proxy-store-"));
  dirs.push(dir);
  return openSqliteStore(join(dir, "nested", "gateway.sqlite"));
});

describeResponseStoreContract("SQLite :memory:", () => openSqliteStore(":memory:"));

describeResponseStoreContract("PostgreSQL 15 (throwaway cluster)", async () => {
  postgres ??= await startPostgresServer();
  return openPostgresStore(await postgres.createDatabase("contract"));
});

describeUsageStoreContract("SQLite :memory:", () => openSqliteStore(":memory:"));

describeUsageStoreContract("PostgreSQL 15 (throwaway cluster)", async () => {
  postgres ??= await startPostgresServer();
  return openPostgresStore(await postgres.createDatabase(`usage_${Math.random().toString(36).slice(2, 8)}`));
});

describeConversationOwnersContract("SQLite :memory:", async () => (await openSqliteStore(":memory:")).owners);

describeConversationOwnersContract("PostgreSQL 15 (throwaway cluster)", async () => {
  postgres ??= await startPostgresServer();
  const name = `owners_${Math.random().toString(36).slice(2, 8)}`;
  return (await openPostgresStore(await postgres.createDatabase(name))).owners;
});

describe("usage rows PostgreSQL can never hold", () => {
  it("are UsageWriteRejected (a route over the index's row size, a NUL byte), not a retryable failure", async () => {
    postgres ??= await startPostgresServer();
    const store = await openPostgresStore(await postgres.createDatabase("usage_rejected"));
    const row = (route: string) => ({
      key: "k",
      route,
      day: "2026-05-01",
      requests: 1,
      inputTokens: 1,
      cachedInputTokens: 0,
      outputTokens: 1,
      reasoningTokens: 0,
      toolCalls: 0,
      webSearches: 0,
      errors: 0,
    });
    // Random text does not compress: PostgreSQL's btree refuses index rows over ~2.7 KB.
    const long = Array.from({ length: 3000 }, () =>
      String.fromCharCode(33 + Math.floor(Math.random() * 90)),
    ).join("");
    await expect(store.recordUsage([row(long)])).rejects.toBeInstanceOf(UsageWriteRejected);
    await expect(store.recordUsage([row("a\u0000b")])).rejects.toBeInstanceOf(UsageWriteRejected);
    await store.recordUsage([row("fine")]);
    expect((await store.usage({ key: "k" }, { limit: 10 })).data.map((r) => r.route)).toEqual(["fine"]);
    await store.close();
  });
});

describe("the throwaway PostgreSQL server", () => {
  it("without server binaries, fails saying how to install them (never skips)", async () => {
    await expect(startPostgresServer({ binDirs: ["/nonexistent/bin"] })).rejects.toThrow(
      /apt-get install postgresql/,
    );
  });
});

describe("migrations", () => {
  it("are versioned and applied once, also when two processes open one SQLite file together", async () => {
    const dir = await mkdtemp(join(tmpdir(), "proxy-store-"));
    dirs.push(dir);
    const path = join(dir, "shared.sqlite");
    const drivers = [openSqliteDriver(path), openSqliteDriver(path)];
    const applied = await Promise.all(drivers.map((driver) => migrate(driver, 1)));
    expect(applied.sort()).toEqual([0, MIGRATIONS.length]);
    const rows = await drivers[0]?.all("SELECT version FROM schema_migrations ORDER BY version");
    expect(rows?.map((row) => Number(row.version))).toEqual(MIGRATIONS.map((m) => m.version));
    for (const driver of drivers) await driver.close();
  });
});
