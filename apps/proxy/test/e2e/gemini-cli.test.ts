import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGeminiCli } from "./cli-clients.js";
import {
  lastUserText,
  type RecordedRequest,
  type ScriptedResponse,
  startE2E,
  toolCallText,
} from "./e2e-gateway.js";
import { fn, trailingOutputs } from "./native-support.js";

const KEY = "gemini-cli-key";

/** A throwaway directory for the CLI's HOME and project (the run creates what it needs under it). */
const makeWorkspace = async () => {
  const work = await mkdtemp(join(tmpdir(), "gemini-cli-e2e-"));
  return { work, marker: join(work, "proj", "marker.txt") };
};

/** The CLI's routing question (no `-m`): structured output with its complexity schema. */
const isRouterRequest = (r: RecordedRequest) =>
  JSON.stringify(r.body.text ?? "").includes("complexity_score");

/**
 * The Gemini CLI (0.61, non-interactive, offline) against the gateway over the real codex: the
 * scripted model asks for the CLI's own `write_file` tool, the CLI runs it on its side (in a
 * throwaway directory), sends the functionResponse back, and the model finishes.
 */
describe("end to end: Gemini CLI → gateway → real codex app-server → scripted model", {
  timeout: 120_000,
}, () => {
  let cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanup) await c();
    cleanup = [];
  });

  const complete = async (
    mode: "prompt" | "native",
    model: (marker: string) => (r: RecordedRequest) => ScriptedResponse,
    pinModel = true,
  ) => {
    const { work, marker } = await makeWorkspace();
    const e2e = await startE2E(model(marker), { PROXY_API_KEYS: KEY, PROXY_TOOL_MODE: mode });
    cleanup.push(
      () => e2e.close(),
      () => rm(work, { recursive: true, force: true }),
    );
    const { stdout, stderr, code } = await runGeminiCli(work, e2e.url, { key: KEY, pinModel });
    expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
    expect(await readFile(marker, "utf8")).toBe("hi\n");
    expect((JSON.parse(stdout) as { response: string }).response).toBe("Done: marker.txt holds hi.");
    // One model turn for the call, one for the answer: no re-requests (every stream ended with a finishReason).
    const turns = e2e.provider.requests.filter((r) => !isRouterRequest(r));
    expect(turns).toHaveLength(2);
    return { last: turns[1]!, routed: e2e.provider.requests.length - turns.length };
  };

  it("prompt tool mode: gemini -p --yolo completes the task with its own write_file tool", async () => {
    const { last } = await complete("prompt", (marker) => (request) => {
      const input = lastUserText(request);
      if (/\[function_call_output call_id=\S+ output=/.test(input))
        return { chunks: ["Done: ", "marker.txt holds hi."] };
      if (/marker/.test(input))
        return {
          chunks: ["Writing it. ", toolCallText("write_file", { file_path: marker, content: "hi\n" })],
        };
      return { text: "Nothing to do." };
    });
    // The CLI echoed the gateway's call id back with the tool's output.
    expect(lastUserText(last)).toMatch(/\[function_call_output call_id="call_\w+" output="/);
  });

  it("native tool mode: the model's own write_file call runs in the CLI and its output comes back natively", async () => {
    const { last } = await complete("native", (marker) => (request) => {
      if (trailingOutputs(request).length > 0) return { chunks: ["Done: ", "marker.txt holds hi."] };
      return { items: [fn("call_cli_1", "write_file", { file_path: marker, content: "hi\n" })] };
    });
    const items = (last.body.input ?? []) as Array<{ type?: string; call_id?: string }>;
    expect(items.filter((i) => i.type?.startsWith("function_call")).map((i) => [i.type, i.call_id])).toEqual([
      ["function_call", "call_cli_1"],
      ["function_call_output", "call_cli_1"],
    ]);
  });

  it("without -m: the CLI's JSON-mode routing request is answered, then the routed turn completes the task", async () => {
    const { routed } = await complete(
      "prompt",
      (marker) => (request) => {
        if (isRouterRequest(request))
          return { text: '{"complexity_reasoning":"one file","complexity_score":10}' };
        const input = lastUserText(request);
        if (/\[function_call_output call_id=\S+ output=/.test(input))
          return { chunks: ["Done: ", "marker.txt holds hi."] };
        return { chunks: [toolCallText("write_file", { file_path: marker, content: "hi\n" })] };
      },
      false,
    );
    expect(routed).toBe(1);
  });
});
