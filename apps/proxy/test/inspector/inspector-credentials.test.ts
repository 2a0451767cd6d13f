import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/config.js";
import { type RunningGateway, startGateway } from "../../src/gateway.js";

/** The real codex binary on an empty CODEX_HOME (not logged in): the overview says so. */
describe("the inspector's overview on a codex that is not logged in", { timeout: 120_000 }, () => {
  let gateway: RunningGateway;
  let home = "";
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "codex-empty-home-"));
    gateway = await startGateway(resolveConfig({ env: { PROXY_INSPECTOR: "on" }, flags: { port: "0" } }), {
      logger: pino({ level: "silent" }),
      env: { ...process.env, CODEX_HOME: home },
    });
  }, 60_000);
  afterAll(async () => {
    await gateway?.shutdown("test done");
    await rm(home, { recursive: true, force: true });
  });

  it("shows codex's credential state and the versions of the gateway and the codex CLI", async () => {
    const o = (await (await fetch(`${gateway.url}/ui/api/overview`)).json()) as {
      gateway: { version: string; codexVersion?: string; uptimeSeconds: number };
      backend: { name: string; ready: boolean; credentials: string; detail: string };
    };
    expect(o.backend).toMatchObject({ name: "codex-app-server", ready: false, credentials: "not logged in" });
    expect(o.backend.detail).toContain("codex login");
    expect(o.gateway.codexVersion).toMatch(/^\d+\.\d+\.\d+/);
    expect(o.gateway.uptimeSeconds).toBeGreaterThanOrEqual(0);
  });
});
