import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { makeCodexHome, startScriptedModelProvider } from "@proxy/adapter-codex-appserver/testing";
import { afterEach, describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
const tsx = createRequire(import.meta.url).resolve("tsx");

/** The gateway as its own process (as `npm start` runs it), so signals and exit codes are real. */
const spawnGateway = async (env: Record<string, string>) => {
  const child = spawn(process.execPath, ["--conditions=@proxy/source", "--import", tsx, main], {
    env: { ...process.env, PORT: "0", LOG_LEVEL: "info", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: Array<Record<string, unknown>> = [];
  let buffered = "";
  child.stdout?.on("data", (b: Buffer) => {
    buffered += b.toString();
    for (let i = buffered.indexOf("\n"); i >= 0; i = buffered.indexOf("\n")) {
      const line = buffered.slice(0, i);
      buffered = buffered.slice(i + 1);
      try {
        lines.push(JSON.parse(line));
      } catch {
        // not a log line
      }
    }
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const listening = lines.find((l) => l.msg === "gateway listening");
      if (listening) {
        clearInterval(timer);
        resolve(String(listening.url));
      }
    }, 50);
    child.once("exit", (code) => reject(new Error(`gateway exited early (${code})`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, url, lines, exited };
};

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
