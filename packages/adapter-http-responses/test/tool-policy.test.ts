import { afterEach, describe, expect, it } from "vitest";
import { postRaw, startGateway, type TestGateway } from "./support/gateway.js";
import { fragments, MODEL, TIME_TOOL, toolBlock, WEATHER_TOOL } from "./support/scripts.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const create = async (body: Record<string, unknown>) => {
  const res = await postRaw(`${gateway!.baseURL}/responses`, { model: MODEL, input: "go", ...body });
  return JSON.parse(res.text) as { output: Array<{ type: string; name?: string }> };
};
const TWO_CALLS = toolBlock("get_weather", { city: "Paris" }) + toolBlock("get_time", { tz: "UTC" });

describe("tool policy reaches the core (no policy code in the adapter)", () => {
  it("parallel_tool_calls:false yields at most one call", async () => {
    gateway = await startGateway([{ chunks: fragments(TWO_CALLS) }]);
    const { output } = await create({ tools: [WEATHER_TOOL, TIME_TOOL], parallel_tool_calls: false });
    expect(output.filter((o) => o.type === "function_call").map((o) => o.name)).toEqual(["get_weather"]);
  });

  it("allowed_tools exposes only the listed tools to the backend", async () => {
    gateway = await startGateway([{ chunks: "ok" }]);
    await create({
      tools: [WEATHER_TOOL, TIME_TOOL],
      tool_choice: { type: "allowed_tools", mode: "auto", tools: [{ type: "function", name: "get_time" }] },
    });
    const instructions = gateway.backend.requests[0]!.instructions;
    expect(instructions).toContain("get_time");
    expect(instructions).not.toContain("get_weather");
  });

  it("a forced function ({type:'function', name}) is offered alone", async () => {
    gateway = await startGateway([{ chunks: fragments(toolBlock("get_time", { tz: "UTC" })) }]);
    const { output } = await create({
      tools: [WEATHER_TOOL, TIME_TOOL],
      tool_choice: { type: "function", name: "get_time" },
    });
    expect(output.map((o) => o.name)).toEqual(["get_time"]);
  });

  it("tool_choice 'none' never yields a function_call item", async () => {
    gateway = await startGateway([
      { chunks: fragments(`Sure. ${toolBlock("get_weather", { city: "Oslo" })}`) },
    ]);
    const { output } = await create({ tools: [WEATHER_TOOL], tool_choice: "none" });
    expect(output.map((o) => o.type)).toEqual(["message"]);
  });

  it("hosted tools are accepted and not offered, custom tools are offered; a hosted tool_choice degrades to auto", async () => {
    gateway = await startGateway([{ chunks: "ok" }]);
    const res = await postRaw(`${gateway.baseURL}/responses`, {
      model: MODEL,
      input: "go",
      tools: [
        WEATHER_TOOL,
        {
          type: "custom",
          name: "apply_patch",
          format: { type: "grammar", syntax: "lark", definition: "start: /.+/" },
        },
        { type: "web_search", external_web_access: false },
        { type: "file_search", vector_store_ids: ["vs_1"] },
        { type: "mcp", server_label: "x", server_url: "https://example.com" },
      ],
      tool_choice: { type: "web_search_preview" },
    });
    expect(res.status).toBe(200);
    const instructions = gateway.backend.requests[0]!.instructions;
    expect(instructions).toContain("get_weather");
    expect(instructions).toContain("- apply_patch (custom: free-text input)");
    expect(instructions).not.toContain("web_search");
  });
});
