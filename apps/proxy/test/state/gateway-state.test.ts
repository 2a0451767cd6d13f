import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/config.js";
import { openGatewayState } from "../../src/state/gateway-state.js";
import { durationMs, storeLocation } from "../../src/state/store-location.js";

const silent = pino({ level: "silent" });

describe("PROXY_STORE and retention", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it("defaults to SQLite at $PROXY_DATA_DIR/gateway.sqlite, kept 30 days, 16 MiB per response", () => {
    const config = resolveConfig({ env: {} });
    expect(config).toMatchObject({
      store: "sqlite:",
      dataDir: "./data",
      storeTtl: "30d",
      storeMaxResponseBytes: 16 * 1024 * 1024,
      storeLeaseMs: 30_000,
      conversationsAutocreate: false,
    });
    expect(storeLocation(config.store, config.dataDir)).toEqual({
      kind: "sqlite",
      path: resolve("data/gateway.sqlite"),
    });
    expect(storeLocation("sqlite:/var/lib/x.db", "./data")).toEqual({
      kind: "sqlite",
      path: "/var/lib/x.db",
    });
    expect(storeLocation("memory", "./data")).toEqual({ kind: "memory" });
    expect(storeLocation("none", "./data")).toEqual({ kind: "none" });
    expect(storeLocation("postgres://u:p@db:5432/gw", "./data")).toEqual({
      kind: "postgres",
      url: "postgres://u:p@db:5432/gw",
    });
  });

  it.each([
    ["30d", 30 * 86_400_000],
    ["12h", 12 * 3_600_000],
    ["90m", 90 * 60_000],
    ["45s", 45_000],
    ["3600", 3_600_000],
  ])("PROXY_STORE_TTL=%s is %d ms", (value, ms) => {
    expect(durationMs(resolveConfig({ env: { PROXY_STORE_TTL: value } }).storeTtl)).toBe(ms);
  });

  it.each([
    [{ PROXY_STORE: "mysql://x" }, /PROXY_STORE.*sqlite:<path>, memory, none or a postgres/],
    [{ PROXY_STORE_TTL: "soon" }, /PROXY_STORE_TTL.*duration/],
    [{ PROXY_STORE_TTL: "0" }, /PROXY_STORE_TTL/],
    [{ PROXY_STORE_LEASE_MS: "60000" }, /PROXY_STORE_LEASE_MS/],
    [{ PROXY_STORE_MAX_RESPONSE_BYTES: "0" }, /PROXY_STORE_MAX_RESPONSE_BYTES/],
  ])("rejects %o naming the variable", (env, message) => {
    expect(() => resolveConfig({ env })).toThrow(message);
  });

  it("creates the SQLite file (and its directory) and purges expired state in the background", async () => {
    const dir = await mkdtemp(join(tmpdir(), "proxy-state-"));
    dirs.push(dir);
    const config = resolveConfig({ env: { PROXY_DATA_DIR: join(dir, "nested"), PROXY_STORE_TTL: "1s" } });
    const state = await openGatewayState(config, silent, { purgeEveryMs: 100 });
    expect((await stat(join(dir, "nested", "gateway.sqlite"))).isFile()).toBe(true);
    const store = state.stored?.store;
    if (store === undefined) throw new Error("no store");
    expect(state.stored?.ttlMs).toBe(1000);
    const now = Date.now();
    await store.createConversation(
      { id: "conv_old", owner: "", createdAt: now, expiresAt: now + 200, metadata: {} },
      [],
    );
    await store.createConversation(
      { id: "conv_new", owner: "", createdAt: now, expiresAt: now + 60_000, metadata: {} },
      [],
    );
    await new Promise((r) => setTimeout(r, 600));
    expect(await store.getConversation("", "conv_old")).toBeUndefined();
    expect(await store.getConversation("", "conv_new")).toBeDefined();
    await state.close();
  });

  it("PROXY_STORE=none opens nothing", async () => {
    const state = await openGatewayState(resolveConfig({ env: { PROXY_STORE: "none" } }), silent);
    expect(state.stored).toBeUndefined();
    await state.close();
  });
});
