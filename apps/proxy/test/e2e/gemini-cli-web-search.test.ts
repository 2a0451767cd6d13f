import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { runGeminiCli } from "./cli-clients.js";
import { lastUserText, type RecordedRequest, toolCallText } from "./e2e-gateway.js";
import { hostedToolsOf, SEARCH_QUERY, searchingModel, useCliSearchRun } from "./hosted-search-support.js";
import { fn, trailingOutputs } from "./native-support.js";

const KEY = "gemini-cli-search-key";

/**
 * The scripted model behind codex, for the Gemini CLI's `google_web_search`: the main turn calls the
 * CLI's tool; the CLI's sub-request (`tools: [{googleSearch: {}}]`) gets codex's hosted search; shown
 * the tool's output (the answer with its sources), the model answers from it.
 */
const model = (request: RecordedRequest) => {
  if (hostedToolsOf(request).length > 0) return searchingModel(request);
  const input = lastUserText(request);
  if (/\[function_call_output call_id=/.test(input)) {
    const grounded = input.includes("https://www.met.no/en") && input.includes("Sources");
    return { text: grounded ? "Grounded: Oslo is sunny." : `Not grounded: ${input.slice(-400)}` };
  }
  if (JSON.stringify(request.body.text ?? "").includes("complexity_score"))
    return { text: '{"complexity_score": 1}' };
  return { chunks: [toolCallText("google_web_search", { query: SEARCH_QUERY })] };
};

/** The same flow with the CLI's tools given to codex natively (tool mode `auto`). */
const nativeModel = (request: RecordedRequest) => {
  if (hostedToolsOf(request).length > 0) return searchingModel(request);
  const outputs = trailingOutputs(request).join("\n");
  if (outputs !== "") {
    const grounded = outputs.includes("https://www.met.no/en") && outputs.includes("Sources");
    return { text: grounded ? "Grounded: Oslo is sunny." : `Not grounded: ${outputs.slice(-400)}` };
  }
  return { items: [fn(`call_${request.index}`, "google_web_search", { query: SEARCH_QUERY })] };
};

describe.each([
  ["prompt", model],
  ["native", nativeModel],
] as const)(
  "end to end: the Gemini CLI's google_web_search → googleSearch → codex's hosted search (%s tool mode)",
  { timeout: 150_000 },
  (mode, script) => {
    const h = useCliSearchRun(
      script,
      { PROXY_API_KEYS: KEY, PROXY_TOOL_MODE: mode === "native" ? "auto" : "prompt" },
      `gemini-cli-search-${mode}-`,
    );

    it("the CLI's search sub-request is grounded, and the model sees the sources", async () => {
      const run = await runGeminiCli(h.work, h.forwarder.url, {
        key: KEY,
        prompt: "Search the web: what is the weather in Oslo today?",
        timeoutMs: 120_000,
      });
      expect({ code: run.code, stderr: run.code === 0 ? "" : run.stderr }).toEqual({ code: 0, stderr: "" });
      const output = JSON.parse(run.stdout) as {
        response: string;
        stats: { tools: { byName: Record<string, { success: number }> } };
      };
      // The model says "Grounded" only when the tool's output held the sources the grounding named.
      expect(output.response).toBe("Grounded: Oslo is sunny.");
      expect(output.stats.tools.byName.google_web_search).toMatchObject({ success: 1 });
      const pinned = JSON.parse(
        await readFile(
          new URL("../fixtures/hosted-search/gemini-cli-web-search-request.json", import.meta.url),
          "utf8",
        ),
      ) as Record<string, unknown>;
      const searches = h.forwarder.requests.filter((r) =>
        JSON.stringify(r.body.tools ?? []).includes("googleSearch"),
      );
      expect(searches).toHaveLength(1);
      expect(searches[0]?.path).toBe(pinned.path);
      for (const key of ["contents", "tools", "generationConfig"])
        expect(searches[0]?.body[key], key).toEqual(pinned[key]);
      // Only that sub-request got codex's search.
      expect(h.e2e.provider.requests.filter((r) => hostedToolsOf(r).length > 0)).toHaveLength(1);
    });
  },
);
