import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runClaudeCode } from "./cli-clients.js";
import { lastUserText, type RecordedRequest, startE2E, toolCallText, transcriptOf } from "./e2e-gateway.js";
import { askOf, fn, toolsOf, trailingOutputs } from "./native-support.js";

/**
 * The scripted model behind codex: asked to create a marker file it calls Claude Code's Bash tool;
 * shown the tool's result it says it is done.
 */
const model = (request: RecordedRequest) => {
  const input = lastUserText(request);
  if (/Tool loaded: WebFetch/.test(transcriptOf(request))) return { text: "WebFetch is loaded." };
  if (/Load the WebFetch tool/.test(input))
    return { chunks: [toolCallText("ToolSearch", { query: "select:WebFetch", max_results: 5 })] };
  if (/\[function_call_output call_id="call_/.test(input)) return { text: "Done: marker.txt contains hi." };
  // The user's prompt must be the turn's input (not buried in history behind a system note).
  if (!/Create marker\.txt containing hi/.test(input))
    return { text: `Unexpected input: ${input.slice(-200)}` };
  return {
    chunks: [
      "I will write the file. ",
      toolCallText("Bash", { command: "echo hi > marker.txt", description: "Write marker file" }),
    ],
  };
};

interface ClaudeResult {
  readonly is_error: boolean;
  readonly result: string;
  readonly num_turns: number;
}

/** Claude Code in non-interactive mode, per the verified run recipe, in a throwaway project directory. */
const runClaude = async (
  url: string,
  work: string,
  extraArgs: string[],
  prompt = "Create marker.txt containing hi",
) => {
  const run = await runClaudeCode(url, work, { args: extraArgs, prompt });
  if (run.code !== 0) throw new Error(`claude failed (${run.code})\n${run.stdout}\n${run.stderr}`);
  return { project: run.project, result: JSON.parse(run.stdout) as ClaudeResult };
};

describe("end to end: Claude Code → /v1/messages → real codex app-server → scripted model", {
  timeout: 120_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let work: string;
  beforeAll(async () => {
    e2e = await startE2E(model);
    work = await mkdtemp(join(tmpdir(), "claude-code-e2e-"));
  }, 60_000);
  afterAll(async () => {
    await e2e?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  for (const [shape, extra] of [
    ["classic shape (claude-sonnet-4-5)", ["--model", "claude-sonnet-4-5"]],
    ["default model (system-role messages, deferred tools)", []],
  ] as const) {
    it(`${shape}: Claude Code runs its Bash tool on its side and finishes`, async () => {
      const before = e2e.provider.requests.length;
      const logged = e2e.logs.length;
      const { project, result } = await runClaude(e2e.url, join(work, shape.split(" ")[0]!), [...extra]);
      expect(result, JSON.stringify(result)).toMatchObject({
        is_error: false,
        result: "Done: marker.txt contains hi.",
      });
      expect(result.num_turns).toBeGreaterThanOrEqual(2);
      expect(await readFile(join(project, "marker.txt"), "utf8")).toBe("hi\n");
      // Executed by the client only: nothing was written where the gateway runs.
      expect(existsSync(join(process.cwd(), "marker.txt"))).toBe(false);
      // Every turn streamed and succeeded: no non-streaming fallback hid a broken stream.
      const turns = e2e.logs.slice(logged).filter((l) => l.msg === "request" && l.route === "/v1/messages");
      expect(turns.length).toBeGreaterThanOrEqual(2);
      for (const turn of turns) expect(turn).toMatchObject({ status: 200, stream: true });
      const upstream = e2e.provider.requests.slice(before);
      expect(upstream.length).toBeGreaterThanOrEqual(2);
      for (const request of upstream) {
        expect(request.body.model).toBe("scripted-model");
        expect(request.body.tools ?? []).toEqual([]);
      }
    });
  }

  it("ToolSearch: a deferred tool is offered to the model once Claude Code has loaded it", async () => {
    const before = e2e.provider.requests.length;
    const { result } = await runClaude(e2e.url, join(work, "toolsearch"), [], "Load the WebFetch tool.");
    expect(result, JSON.stringify(result)).toMatchObject({ is_error: false, result: "WebFetch is loaded." });
    const [first, second] = e2e.provider.requests.slice(before);
    // WebFetch's entry in the gateway's tool manifest reaches the model only after the load.
    const manifestEntry = /- WebFetch — .{0,4000}arguments schema/;
    expect(transcriptOf(first!)).not.toMatch(manifestEntry);
    expect(transcriptOf(second!)).toMatch(manifestEntry);
  });
});

/** The same task with the gateway's default tool mode: Claude Code's tools go to codex natively. */
const nativeModel = (request: RecordedRequest) => {
  if (trailingOutputs(request).length > 0) return { text: "Done natively." };
  if (!/Create marker\.txt containing hi/.test(askOf(request))) return { text: "Unexpected input." };
  return {
    chunks: ["I will write the file. "],
    items: [
      fn(`call_${request.index}`, "Bash", { command: "echo hi > marker.txt", description: "Write marker" }),
    ],
    itemsLast: true,
  };
};

describe("end to end: Claude Code in native tool mode (the default `auto` with codex)", {
  timeout: 120_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let work: string;
  beforeAll(async () => {
    e2e = await startE2E(nativeModel, { PROXY_TOOL_MODE: "auto" });
    work = await mkdtemp(join(tmpdir(), "claude-code-native-"));
  }, 60_000);
  afterAll(async () => {
    await e2e?.close();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("Claude Code's tools reach codex as native tools, and its Bash call comes back as tool_use", async () => {
    const { project, result } = await runClaude(e2e.url, work, ["--model", "claude-sonnet-4-5"]);
    expect(result, JSON.stringify(result)).toMatchObject({ is_error: false, result: "Done natively." });
    expect(await readFile(join(project, "marker.txt"), "utf8")).toBe("hi\n");
    const first = e2e.provider.requests[0]!;
    expect(toolsOf(first).map((t) => t.name)).toContain("Bash");
    expect(JSON.stringify(first.body.input)).not.toContain("<tool_call>");
  });
});
