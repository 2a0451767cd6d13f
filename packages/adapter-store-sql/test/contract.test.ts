import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeResponseStoreContract, describeUsageStoreContract } from "@proxy/core/testing";
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
