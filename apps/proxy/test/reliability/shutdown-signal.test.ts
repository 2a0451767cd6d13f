import type { ChildProcess } from "node:child_process";
import { makeCodexHome, startScriptedModelProvider } from "@proxy/adapter-codex-appserver/testing";
import { afterEach, describe, expect, it } from "vitest";
import { spawnGateway } from "../support/spawn-gateway.js";
import { waitUntil } from "./support.js";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("shutdown under a process-group signal (gateway process + real codex)", { timeout: 60_000 }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child?.pid && child.exitCode === null) process.kill(-child.pid, "SIGKILL");
    for (const c of cleanups.splice(0)) await c();
  });

  it("Ctrl-C to the whole group: the in-flight stream finishes, codex is not restarted, nothing is left behind", async () => {
    const provider = await startScriptedModelProvider({
      chunks: Array.from({ length: 8 }, (_, i) => `w${i} `),
      delayMs: 150,
    });
    const home = await makeCodexHome(provider.url);
    cleanups.push(
      () => provider.close(),
      () => home.cleanup(),
    );
    const gateway = await spawnGateway(
      { CODEX_HOME: home.path, PROXY_SHUTDOWN_GRACE_MS: "20000" },
      { detached: true },
    );
    child = gateway.child;
    const codexPid = Number(gateway.lines.find((l) => l.msg === "codex app-server ready")?.pid);
    expect(codexPid).toBeGreaterThan(0);
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "go" }] }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let body = new TextDecoder().decode((await reader.read()).value);
    // What a terminal does on Ctrl-C (and systemd's KillMode=process-group): signal every process of the group.
    process.kill(-(gateway.child.pid as number), "SIGINT");
    for (let r = await reader.read(); !r.done; r = await reader.read())
      body += new TextDecoder().decode(r.value);
    expect(body).toContain("w7");
    expect(body).toMatch(/data: \[DONE\]/);
    expect(await gateway.exited).toBe(0);
    const messages = gateway.lines.map((l) => String(l.msg));
    expect(messages).toContain("stopped");
    expect(messages.filter((m) => m === "codex app-server ready")).toHaveLength(1);
    expect(messages.some((m) => /died|restart/.test(m))).toBe(false);
    await waitUntil(() => !alive(codexPid), "codex to be gone", 5_000);
  });

  it("a codex that dies while the gateway drains is not restarted; the gateway still exits 0", async () => {
    const provider = await startScriptedModelProvider({
      chunks: Array.from({ length: 40 }, (_, i) => `w${i} `),
      delayMs: 100,
    });
    const home = await makeCodexHome(provider.url);
    cleanups.push(
      () => provider.close(),
      () => home.cleanup(),
    );
    const gateway = await spawnGateway(
      { CODEX_HOME: home.path, PROXY_SHUTDOWN_GRACE_MS: "20000" },
      { detached: true },
    );
    child = gateway.child;
    const codexPid = Number(gateway.lines.find((l) => l.msg === "codex app-server ready")?.pid);
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "go" }] }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    gateway.child.kill("SIGTERM");
    await waitUntil(() => gateway.lines.some((l) => /^shutting down/.test(String(l.msg))), "draining");
    process.kill(codexPid, "SIGKILL");
    let body = "";
    for (let r = await reader.read(); !r.done; r = await reader.read())
      body += new TextDecoder().decode(r.value);
    expect(body).toMatch(/"error"/);
    expect(await gateway.exited).toBe(0);
    const messages = gateway.lines.map((l) => String(l.msg));
    expect(messages).toContain("codex app-server exited while draining");
    expect(messages.filter((m) => m === "codex app-server ready")).toHaveLength(1);
  });
});
