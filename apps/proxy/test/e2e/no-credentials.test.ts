import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/config.js";
import { type RunningGateway, startGateway } from "../../src/gateway.js";

describe("the default codex backend without credentials", { timeout: 60_000 }, () => {
  let gateway: RunningGateway | undefined;
  let home = "";
  const logs: Array<Record<string, unknown>> = [];
  afterAll(async () => {
    await gateway?.shutdown("test done");
    await rm(home, { recursive: true, force: true });
  });

  it("warns at startup and fails requests at once with a clear backend_auth error", async () => {
    home = await mkdtemp(join(tmpdir(), "codex-empty-home-"));
    const logger = pino({ level: "info" }, { write: (l: string) => void logs.push(JSON.parse(l)) });
    gateway = await startGateway(resolveConfig({ env: {}, flags: { port: "0" } }), {
      logger,
      env: { ...process.env, CODEX_HOME: home },
    });
    expect(logs.some((l) => l.level === 40 && String(l.msg).includes("codex login"))).toBe(true);
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "gpt-5.5", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(503);
    const body = (await res.json()) as { error: { code: string; message: string; type: string } };
    expect(body.error).toMatchObject({ code: "backend_not_logged_in", type: "authentication_error" });
    expect(body.error.message).toContain("codex login");
  });
});
