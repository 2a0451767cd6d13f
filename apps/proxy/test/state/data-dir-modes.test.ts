import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createScriptedBackend } from "@proxy/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { gatewayOver } from "../reliability/support.js";

const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe("the default SQLite store's files are private to the gateway's user", () => {
  const dirs: string[] = [];
  afterEach(async () => {
    for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  it("a data directory the gateway creates is 0700; gateway.sqlite, -wal and -shm are 0600", async () => {
    const parent = await mkdtemp(join(tmpdir(), "gw-modes-"));
    dirs.push(parent);
    const dataDir = join(parent, "data", "nested");
    const gateway = await gatewayOver(
      createScriptedBackend(() => ({ chunks: ["stored answer"] })),
      {
        PROXY_DATA_DIR: dataDir,
        PROXY_STORE: "sqlite:",
      },
    );
    try {
      const res = await fetch(`${gateway.url}/v1/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "m", input: "keep this secret prompt" }),
      });
      expect(res.status).toBe(200);
      expect(await mode(join(parent, "data"))).toBe(0o700);
      expect(await mode(dataDir)).toBe(0o700);
      for (const file of ["gateway.sqlite", "gateway.sqlite-wal", "gateway.sqlite-shm"])
        expect(await mode(join(dataDir, file)), file).toBe(0o600);
    } finally {
      await gateway.close();
    }
  });
});
