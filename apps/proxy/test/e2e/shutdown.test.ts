import type { ChildProcess } from "node:child_process";
import { makeCodexHome, startScriptedModelProvider } from "@proxy/adapter-codex-appserver/testing";
import { afterEach, describe, expect, it } from "vitest";
import { spawnGateway } from "../support/spawn-gateway.js";

describe("graceful shutdown (gateway process + real codex)", { timeout: 90_000 }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  let child: ChildProcess | undefined;
  afterEach(async () => {
    child?.kill("SIGKILL");
    for (const c of cleanups.splice(0)) await c();
  });

  const streamChat = (url: string) =>
    fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "go" }] }),
    });

  it.each([
    ["lets an in-flight stream finish within the grace period", "20000", /data: \[DONE\]/],
    [
      "ends a stream still running at the deadline with a terminal error event",
      "300",
      /"error":\{"message":"The gateway shut down/,
    ],
  ])("SIGTERM %s, then exits 0", async (_title, grace, expected) => {
    const provider = await startScriptedModelProvider({
      chunks: Array.from({ length: 10 }, (_, i) => `w${i} `),
      delayMs: 200,
    });
    const home = await makeCodexHome(provider.url);
    cleanups.push(
      () => provider.close(),
      () => home.cleanup(),
    );
    const gateway = await spawnGateway({ CODEX_HOME: home.path, PROXY_SHUTDOWN_GRACE_MS: grace });
    child = gateway.child;
    const res = await streamChat(gateway.url);
    const reader = res.body!.getReader();
    let body = new TextDecoder().decode((await reader.read()).value);
    gateway.child.kill("SIGTERM");
    for (let r = await reader.read(); !r.done; r = await reader.read())
      body += new TextDecoder().decode(r.value);
    expect(body).toMatch(expected);
    expect(await gateway.exited).toBe(0);
    expect(gateway.lines.some((l) => l.msg === "stopped")).toBe(true);
  });
});
