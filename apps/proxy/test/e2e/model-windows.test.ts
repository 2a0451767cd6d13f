import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startE2E } from "./e2e-gateway.js";

/**
 * With model routes, each route (and alias) is listed with the context window of the model it
 * runs, from codex's catalog (its `context_window` × `effective_context_window_percent`), in each
 * client's listing: OpenAI's `context_window`, Anthropic's `max_input_tokens`, Gemini's `inputTokenLimit`.
 */
describe("the model lists behind model routes carry each route's context window (real codex catalog)", {
  timeout: 60_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  beforeAll(async () => {
    e2e = await startE2E(() => ({ text: "unused" }), {
      PROXY_MODELS: JSON.stringify([
        { id: "gpt-5.5", backend: "codex", aliases: ["claude-opus-5-5"] },
        { id: "big", backend: "codex", upstreamModel: "gpt-6.1-terra" },
        { id: "e2e-model", backend: "codex" },
      ]),
    });
  }, 60_000);
  afterAll(() => e2e?.close());
  const get = async (path: string, headers: Record<string, string> = {}) =>
    (await (
      await fetch(`${e2e.url}${path}`, { headers: { authorization: "Bearer k", ...headers } })
    ).json()) as Record<string, unknown>;
  // gpt-5.5: 272 000 × 95 %; gpt-6.1-terra: 500 000 × 95 %; the scripted model is not in the catalog.
  const WINDOWS: ReadonlyArray<[string, number | undefined]> = [
    ["gpt-5.5", 258_400],
    ["claude-opus-5-5", 258_400],
    ["big", 475_000],
    ["e2e-model", undefined],
  ];

  it("OpenAI's /v1/models: context_window", async () => {
    const data = (await get("/v1/models")).data as Array<{ id: string; context_window?: number }>;
    expect(data.map((m) => [m.id, m.context_window])).toEqual(WINDOWS);
    const one = await get("/v1/models/big");
    expect(one).toMatchObject({ id: "big", context_window: 475_000 });
  });

  it("Anthropic's models list: max_input_tokens", async () => {
    const data = (await get("/v1/models", { "anthropic-version": "2023-06-01" })).data as Array<{
      type: string;
      id: string;
      max_input_tokens?: number;
    }>;
    expect(data.map((m) => [m.id, m.max_input_tokens])).toEqual(WINDOWS);
    expect(data.every((m) => m.type === "model")).toBe(true);
  });

  it("Gemini's models list: inputTokenLimit", async () => {
    const models = (await get("/v1beta/models", { "x-goog-api-key": "k" })).models as Array<{
      name: string;
      inputTokenLimit?: number;
    }>;
    expect(models.map((m) => [m.name, m.inputTokenLimit])).toEqual(
      WINDOWS.map(([id, w]) => [`models/${id}`, w]),
    );
  });
});
