import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeCodexHome, startScriptedModelProvider } from "@proxy/adapter-codex-appserver/testing";
import { openSqliteStore } from "@proxy/adapter-store-sql";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { spawnGateway } from "../support/spawn-gateway.js";

describe("graceful shutdown with a background turn in flight (gateway process + real codex + SQLite file)", {
  timeout: 90_000,
}, () => {
  const cleanups: Array<() => Promise<void>> = [];
  let child: ChildProcess | undefined;
  afterEach(async () => {
    child?.kill("SIGKILL");
    for (const c of cleanups.splice(0)) await c();
  });

  it.each([
    ["waits for it within the grace period: its outcome is stored completed", "20000", "completed"],
    ["fails what still runs at the deadline, explicitly, lease released", "300", "failed"],
  ])("SIGTERM %s", async (_title, grace, expected) => {
    const provider = await startScriptedModelProvider({
      chunks: Array.from({ length: 8 }, (_, i) => `w${i} `),
      delayMs: 200,
    });
    const home = await makeCodexHome(provider.url);
    const dir = await mkdtemp(join(tmpdir(), "bg-shutdown-"));
    const file = join(dir, "gateway.sqlite");
    cleanups.push(
      () => provider.close(),
      () => home.cleanup(),
      () => rm(dir, { recursive: true, force: true }),
    );
    const gateway = await spawnGateway({
      CODEX_HOME: home.path,
      PROXY_STORE: `sqlite:${file}`,
      PROXY_SHUTDOWN_GRACE_MS: grace,
    });
    child = gateway.child;
    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: "none", maxRetries: 0 });
    const started = await client.responses.create({ model: "m", input: "count slowly", background: true });
    expect(started.status).toBe("queued");
    await provider.waitFor(() => true);

    gateway.child.kill("SIGTERM");
    expect(await gateway.exited).toBe(0);
    expect(gateway.lines.some((l) => l.msg === "stopped")).toBe(true);

    // Read back from the file the gateway left behind: the outcome is stored, not left to a reaper.
    const store = await openSqliteStore(file);
    cleanups.unshift(() => store.close());
    const stored = await store.getResponse("", started.id);
    expect(stored).toMatchObject({ status: expected, leaseHolder: null });
    const body = stored?.body as { output: Array<{ content?: Array<{ text: string }> }>; error: unknown };
    if (expected === "completed") {
      expect(body.output[0]?.content?.[0]?.text).toBe(Array.from({ length: 8 }, (_, i) => `w${i} `).join(""));
    } else {
      expect(body.error).toMatchObject({ message: "The gateway shut down before the turn finished." });
      const events = await store.readEvents("", started.id, -1);
      expect(events.at(-1)?.body).toMatchObject({ type: "response.failed" });
    }
  });
});
