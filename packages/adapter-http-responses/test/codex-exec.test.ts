import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startGateway, type TestGateway } from "./support/gateway.js";
import { promptText, toolBlock } from "./support/scripts.js";

/**
 * The real `codex exec` (pinned @openai/codex 0.169.0) as a strict Responses client, configured as
 * in codex-app-server.md §3.1: a custom provider with wire_api "responses" pointed at our server.
 */
const CODEX_JS = createRequire(import.meta.url).resolve("@openai/codex/bin/codex.js");

let gateway: TestGateway | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const tempDir = async (prefix: string): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
};

/** A custom provider with wire_api "responses" (inline compaction, no WebSocket attempts). */
const customProvider = (baseURL: string, extraConfig: string[] = []) => [
  'model = "fake-model"', // a non-catalog slug keeps the classic `tools` array (§3.3)
  'model_provider = "proxy"',
  ...extraConfig,
  "[model_providers.proxy]",
  'name = "proxy"',
  `base_url = ${JSON.stringify(baseURL)}`,
  'wire_api = "responses"',
  'env_key = "PROXY_KEY"',
  "request_max_retries = 0",
  "stream_max_retries = 0",
  "stream_idle_timeout_ms = 30000",
];

/**
 * The built-in OpenAI provider pointed at us (§3.4): remote compaction v2 (`compaction_trigger`).
 * It first tries a WebSocket on GET /v1/responses and falls back to HTTPS on the 404.
 */
const builtInProvider = (baseURL: string) => [
  'model = "gpt-5.5"',
  `openai_base_url = ${JSON.stringify(baseURL)}`,
  "model_auto_compact_token_limit = 1000",
];

const runCodexExec = async (config: string[], prompt: string) => {
  const home = await tempDir("codex-home-");
  const work = await tempDir("codex-work-");
  await writeFile(join(home, "config.toml"), `${config.join("\n")}\n`);
  const args = [CODEX_JS, "exec", "--skip-git-repo-check", "--ephemeral", "-s", "workspace-write", prompt];
  // PROXY_KEY for the custom provider's env_key, CODEX_API_KEY for the built-in one.
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    CODEX_HOME: home,
    PROXY_KEY: "sk-test",
    CODEX_API_KEY: "sk-test",
  };
  const result = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      args,
      { cwd: work, env, timeout: 120_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr }),
    );
    child.stdin?.end(); // like `< /dev/null`: codex exec would otherwise wait for stdin
  });
  return { ...result, work };
};

type InputItem = { type?: string; call_id?: string; id?: string; output?: string; role?: string };
const inputOf = (body: unknown): InputItem[] =>
  ((body as { input?: InputItem[] }).input ?? []) as InputItem[];

describe("codex exec 0.169 against /v1/responses", () => {
  it("runs exec_command from our function_call, sends the function_call_output back and prints the answer", async () => {
    const command = toolBlock("exec_command", { cmd: "echo hi > marker.txt" });
    gateway = await startGateway((request) =>
      promptText(request).includes("Process exited")
        ? { chunks: ["Marker written."] }
        : { chunks: ["I'll create it. ", command] },
    );
    const run = await runCodexExec(customProvider(gateway.baseURL), "create the marker file");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("Marker written.");
    expect(await readFile(join(run.work, "marker.txt"), "utf8")).toBe("hi\n");

    const posts = gateway.bodies.filter((b) => b.path === "/v1/responses");
    expect(posts).toHaveLength(2);
    const followUp = inputOf(posts[1]?.body);
    // codex echoes our function_call back in its next request and answers it with a function_call_output for our call_id.
    expect(followUp).toContainEqual(
      expect.objectContaining({ type: "function_call", id: "fc_1", call_id: "call_1" }),
    );
    const output = followUp.find((i) => i.type === "function_call_output");
    expect(output?.call_id).toBe("call_1");
    expect(output?.output).toContain("Process exited with code 0");
    // …and the adapter fed it to the backend.
    expect(gateway.backend.requests).toHaveLength(2);
    const second = promptText(gateway.backend.requests[1]!);
    expect(second).toContain("call_1");
    expect(second).toContain("Process exited with code 0");
    expect(gateway.backend.requests[0]!.instructions).toContain("exec_command");
  }, 150_000);

  it("answers codex's inline compaction (tools: []) with text, so codex continues instead of looping", async () => {
    const command = toolBlock("exec_command", { cmd: "echo big" });
    gateway = await startGateway((request) => {
      const prompt = promptText(request);
      if (prompt.includes("CONTEXT CHECKPOINT COMPACTION"))
        // A misbehaving model writes a call anyway: it must reach codex as text, not as a call.
        return { chunks: [`Handoff: ran echo big. ${command}`] };
      // After the tool ran, or after compaction (the history is then our handoff summary).
      if (prompt.includes("Process exited") || prompt.includes("Handoff: ran echo big"))
        return { chunks: ["All done."] };
      return { chunks: [command], usage: { inputTokens: 250_000, outputTokens: 10, totalTokens: 250_010 } };
    });
    const run = await runCodexExec(
      customProvider(gateway.baseURL, ["model_auto_compact_token_limit = 1000"]),
      "run it",
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("All done.");
    const posts = gateway.bodies
      .filter((b) => b.path === "/v1/responses")
      .map((b) => b.body as { tools?: unknown[] });
    const compaction = posts.find(
      (b) => JSON.stringify(b).includes("CONTEXT CHECKPOINT COMPACTION") && b.tools?.length === 0,
    );
    expect(compaction, "codex sent no inline compaction request").toBeDefined();
    // first turn (call) → inline compaction (answered as text) → continuation; no compaction loop.
    expect(posts).toHaveLength(3);
    expect(posts[1]).toBe(compaction);
    expect(gateway.summaries.map((s) => [s.finish, s.telemetry.callsEmitted])).toEqual([
      ["tool_calls", 1],
      ["stop", 0],
      ["stop", 0],
    ]);
  }, 150_000);

  it("remote compaction v2: compaction_trigger gets one compaction item, which codex sends back as context", async () => {
    const command = toolBlock("exec_command", { cmd: "echo big" });
    gateway = await startGateway((request) => {
      const prompt = promptText(request);
      if (prompt.includes("handoff summary")) return { chunks: ["HANDOFF-SUMMARY-1"] };
      if (prompt.includes("HANDOFF-SUMMARY-1")) return { chunks: ["All done."] };
      return { chunks: [command], usage: { inputTokens: 250_000, outputTokens: 10, totalTokens: 250_010 } };
    });
    const run = await runCodexExec(builtInProvider(gateway.baseURL), "run it");
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("All done.");
    const inputs = gateway.bodies.filter((b) => b.path === "/v1/responses").map((b) => inputOf(b.body));
    expect(inputs).toHaveLength(3);
    expect(inputs[1]?.at(-1)).toEqual({ type: "compaction_trigger" });
    expect(inputs[2]).toContainEqual(
      expect.objectContaining({ type: "compaction", id: "cmp_1", encrypted_content: "HANDOFF-SUMMARY-1" }),
    );
    expect(gateway.backend.requests[0]!.instructions).toContain("arguments schema:"); // tools offered…
    expect(gateway.backend.requests[1]!.instructions).not.toContain("arguments schema:"); // …but not for a summary
    expect(promptText(gateway.backend.requests[2]!)).toContain("HANDOFF-SUMMARY-1");
  }, 150_000);
});
