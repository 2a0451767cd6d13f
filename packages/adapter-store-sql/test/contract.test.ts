import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeResponseStoreContract } from "@proxy/core/testing";
import { afterAll } from "vitest";
import { openPostgresStore, openSqliteStore } from "../src/index.js";
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
