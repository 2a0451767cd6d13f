import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { serverEnv } from "./support.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));

const demo = (...args: string[]) =>
  spawnSync("npm", ["run", "demo", "--silent", ...(args.length > 0 ? ["--", ...args] : [])], {
    cwd: root,
    env: serverEnv(),
    encoding: "utf8",
    timeout: 120_000,
  });

describe("npm run demo, as the README runs it", () => {
  it("does a tool round trip in the default, native tool mode", () => {
    const run = demo();
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("Native tool mode (the default)");
    expect(run.stdout).toContain("finish_reason: tool_calls");
    expect(run.stdout).toContain('get_weather({"city":"Paris","unit":"celsius"})');
    expect(run.stdout).toContain("the client's tool offered to the model as a function: true");
    expect(run.stdout).toMatch(/the tool result: a function_call_output item: \{"city":"Paris"/);
    expect(run.stdout).toContain("assistant: It is 18 °C and sunny in Paris right now.");
    expect(run.stdout).toContain("Demo complete");
  }, 120_000);

  it("and in prompt mode when asked", () => {
    const run = demo("prompt");
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("Prompt mode (PROXY_TOOL_MODE=prompt)");
    expect(run.stdout).toContain("parsed the model's <tool_call> text into real tool_calls");
    expect(run.stdout).toMatch(/the tool result: \[function_call_output call_id="call_/);
    expect(run.stdout).toContain("Demo complete");
  }, 120_000);
});
