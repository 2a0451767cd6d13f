import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { startE2E, toolCallText } from "./e2e-gateway.js";

const main = fileURLToPath(new URL("../../src/main.ts", import.meta.url));
const tsx = createRequire(import.meta.url).resolve("tsx");

/** `npm start` with one extra variable: exit code and what it printed on stderr. */
const startWith = (env: Record<string, string>) =>
  new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, ["--conditions=@proxy/source", "--import", tsx, main], {
      env: { ...process.env, PORT: "0", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr?.on("data", (b: Buffer) => {
      stderr += b.toString();
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });

const twoCalls = () => ({
  chunks: [toolCallText("get_weather", { city: "Paris" }), toolCallText("get_weather", { city: "Rome" })],
});
const weather = {
  type: "function" as const,
  function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
};

describe("settings of the earlier codex proxies", { timeout: 60_000 }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0)) await c();
  });

  it("a retired setting stops `npm start` with a message naming its replacement", async () => {
    const { code, stderr } = await startWith({ PROXY_RESPONSES_OUTPUT_MODE: "obsidian-xml" });
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /codex-tool-gateway: PROXY_RESPONSES_OUTPUT_MODE is no longer supported: use PROXY_OUTPUT_MODE/,
    );
  });

  it("PROXY_ENABLE_PARALLEL_TOOL_CALLS=false: one call for requests that do not ask for parallel calls", async () => {
    const e2e = await startE2E(twoCalls, { PROXY_ENABLE_PARALLEL_TOOL_CALLS: "false" });
    cleanups.push(() => e2e.close());
    const client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "sk-none", maxRetries: 0 });
    const ask = { model: "m", messages: [{ role: "user" as const, content: "weather?" }], tools: [weather] };
    const unset = await client.chat.completions.create(ask);
    expect(unset.choices[0]?.message.tool_calls).toHaveLength(1);
    const asked = await client.chat.completions.create({ ...ask, parallel_tool_calls: true });
    expect(asked.choices[0]?.message.tool_calls).toHaveLength(2);
  });
});
