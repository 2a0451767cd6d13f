import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { runClaudeCode } from "./cli-clients.js";
import { lastUserText, type RecordedRequest, toolCallText, transcriptOf } from "./e2e-gateway.js";
import { hostedToolsOf, SEARCH_QUERY, searchingModel, useCliSearchRun } from "./hosted-search-support.js";
import { fn, toolsOf, trailingOutputs } from "./native-support.js";

/**
 * The scripted model behind codex, for Claude Code's WebSearch: the main turn loads the deferred
 * WebSearch tool (ToolSearch) and calls it; Claude Code's web search sub-request (the server tool)
 * gets codex's hosted search; shown the tool's result the model answers from it.
 */
const model = (request: RecordedRequest) => {
  if (hostedToolsOf(request).length > 0) return searchingModel(request);
  const input = lastUserText(request);
  if (/\[function_call_output call_id="call_/.test(input)) {
    const sawResults = input.includes("https://www.met.no/en") && input.includes(SEARCH_QUERY);
    return {
      text: sawResults
        ? "Searched: Oslo is sunny (Yr, Met Norway)."
        : `No results seen: ${input.slice(-300)}`,
    };
  }
  if (/- WebSearch — /.test(transcriptOf(request)))
    return { chunks: [toolCallText("WebSearch", { query: SEARCH_QUERY })] };
  return { chunks: [toolCallText("ToolSearch", { query: "select:WebSearch", max_results: 5 })] };
};

/** The same flow with Claude Code's tools given to codex natively (tool mode `auto`). */
const nativeModel = (request: RecordedRequest) => {
  if (hostedToolsOf(request).length > 0) return searchingModel(request);
  const outputs = trailingOutputs(request).join("\n");
  if (outputs.includes("Web search results")) {
    const sawResults = outputs.includes("https://www.met.no/en") && outputs.includes(SEARCH_QUERY);
    return {
      text: sawResults
        ? "Searched: Oslo is sunny (Yr, Met Norway)."
        : `No results seen: ${outputs.slice(-300)}`,
    };
  }
  const call = toolsOf(request).some((t) => t.name === "WebSearch")
    ? fn(`call_${request.index}`, "WebSearch", { query: SEARCH_QUERY })
    : fn(`call_${request.index}`, "ToolSearch", { query: "select:WebSearch", max_results: 5 });
  return { items: [call] };
};

describe.each([
  ["prompt", model],
  ["native", nativeModel],
] as const)(
  "end to end: Claude Code's WebSearch → /v1/messages web_search server tool → codex's hosted search (%s tool mode)",
  { timeout: 150_000 },
  (mode, script) => {
    const h = useCliSearchRun(
      script,
      { PROXY_TOOL_MODE: mode === "native" ? "auto" : "prompt" },
      `claude-code-search-${mode}-`,
    );

    it("the search runs, Claude Code counts it (not 'Did 0 searches'), and the model sees its results", async () => {
      const run = await runClaudeCode(h.forwarder.url, h.work, {
        args: ["WebSearch", "ToolSearch", "--verbose"],
        prompt: "Search the web: what is the weather in Oslo today?",
        timeoutMs: 120_000,
      });
      expect(run.code, run.stderr).toBe(0);
      // --verbose --output-format json: the session's messages, then the result.
      const transcript = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
      const result = transcript.at(-1) as {
        is_error: boolean;
        result: string;
        modelUsage: Record<string, { webSearchRequests: number }>;
      };
      expect(result, run.stdout.slice(-2000)).toMatchObject({
        is_error: false,
        result: "Searched: Oslo is sunny (Yr, Met Norway).",
      });
      // What WebSearch reports ("Did 1 search"): the web_search_tool_result blocks it got, and their pages.
      const toolResult = transcript.find((m) =>
        JSON.stringify(m.tool_use_result ?? {}).includes('"searchCount"'),
      )?.tool_use_result as {
        query: string;
        searchCount: number;
        results: Array<{ content?: unknown } | string>;
      };
      expect(toolResult).toMatchObject({ query: SEARCH_QUERY, searchCount: 1 });
      expect(toolResult.results[0]).toMatchObject({
        content: [
          { title: "Yr", url: "https://www.yr.no/oslo" },
          { title: "Met Norway", url: "https://www.met.no/en" },
        ],
      });
      expect(Object.values(result.modelUsage).map((u) => u.webSearchRequests)).toContain(1);

      // Pinned: the sub-request Claude Code's WebSearch sends (captured through the forwarder).
      const pinned = JSON.parse(
        await readFile(
          new URL("../fixtures/hosted-search/claude-code-web-search-request.json", import.meta.url),
          "utf8",
        ),
      ) as Record<string, unknown>;
      const searches = h.forwarder.requests.filter((r) =>
        JSON.stringify(r.body.tools ?? []).includes('"web_search_'),
      );
      expect(searches).toHaveLength(1);
      const sub = searches[0]?.body ?? {};
      for (const key of ["messages", "tools", "tool_choice", "stream"])
        expect(sub[key], key).toEqual(pinned[key]);
      // Only that sub-request got codex's search; Claude Code's own turns never did.
      const offered = h.e2e.provider.requests.map((r) => hostedToolsOf(r).length > 0);
      expect(offered.filter(Boolean)).toHaveLength(1);
      expect(offered.length).toBeGreaterThanOrEqual(3);
    });
  },
);
