import { describe, expect, it } from "vitest";
import { toolCallingMiddleware } from "../src/index.js";
import { scriptedModel } from "./support/scripted-model.js";
import { AI7 as sdk } from "./support/sdk.js";

const PROMPT = [{ role: "user" as const, content: [{ type: "text" as const, text: "go" }] }];

describe("options and what the middleware refuses", () => {
  it.each([
    [{ maxToolCalls: 0 }, "`maxToolCalls` must be a whole number of at least 1"],
    [{ maxToolCalls: 1.5 }, "`maxToolCalls` must be a whole number of at least 1"],
    [{ correctiveRetries: -1 }, "`correctiveRetries` must be a whole number of at least 0"],
    [{ maxBlockBytes: 0 }, "`maxBlockBytes` must be a whole number of at least 1"],
  ])("refuses %j when it is made, naming the option", (options, message) => {
    expect(() => toolCallingMiddleware(options)).toThrow(new TypeError(`toolCallingMiddleware: ${message}.`));
  });

  it("a provider-defined tool is left out with an `unsupported` warning; the function tools still work", async () => {
    const scripted = scriptedModel(sdk, ['<tool_call>{"name":"weather","arguments":"{}"}</tool_call>']);
    const model = sdk.wrapLanguageModel({ model: scripted.model, middleware: toolCallingMiddleware() });
    const result = await model.doGenerate({
      prompt: PROMPT,
      tools: [
        { type: "function", name: "weather", inputSchema: { type: "object" } },
        { type: "provider", id: "openai.web_search", name: "web_search", args: {} },
      ],
    });
    expect(result.warnings).toEqual([
      {
        type: "unsupported",
        feature: "provider-defined tool web_search",
        details: "a text-only model is taught function tools only",
      },
    ]);
    expect(result.content.map((p) => p.type)).toEqual(["tool-call"]);
    const system = scripted.prompts[0]?.[0];
    expect(system?.role === "system" && system.content).not.toContain("web_search");
  });

  it("two tools with one name are refused before the model is called", async () => {
    const scripted = scriptedModel(sdk, ["x"]);
    const model = sdk.wrapLanguageModel({ model: scripted.model, middleware: toolCallingMiddleware() });
    const tool = { type: "function" as const, name: "weather", inputSchema: { type: "object" as const } };
    await expect(model.doStream({ prompt: PROMPT, tools: [tool, tool] })).rejects.toThrow(
      "Two tools are named weather.",
    );
    expect(scripted.prompts).toHaveLength(0);
  });

  it("a strict tool whose schema cannot be compiled is refused, naming it", async () => {
    const scripted = scriptedModel(sdk, ["x"]);
    const model = sdk.wrapLanguageModel({ model: scripted.model, middleware: toolCallingMiddleware() });
    const broken = { type: "object" as const, properties: { a: { type: "no-such-type" } } };
    await expect(
      model.doGenerate({
        prompt: PROMPT,
        tools: [{ type: "function", name: "weather", inputSchema: broken as never, strict: true }],
      }),
    ).rejects.toThrow(/^Invalid schema for strict tool 'weather': /);
  });
});
