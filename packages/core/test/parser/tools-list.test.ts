import { describe, expect, it } from "vitest";
import { createSentinelParser, type ToolSpec } from "../../src/index.js";

const weather: ToolSpec = { name: "get_weather", parameters: { type: "object" }, strict: false };
const block = '<tool_call>{"name":"get_weather","arguments":{"city":"Paris"}}</tool_call>';

describe("createSentinelParser's tools", () => {
  it("takes the list a user has, the same as a map by name", () => {
    const fromList = createSentinelParser({ tools: [weather] });
    const fromMap = createSentinelParser({ tools: new Map([[weather.name, weather]]) });
    const read = (parser: typeof fromList) => [...parser.push(block), ...parser.flush()];
    const events = read(fromList);
    expect(events).toEqual(read(fromMap));
    expect(events.find((e) => e.type === "tool-call-end")).toMatchObject({
      name: "get_weather",
      arguments: '{"city":"Paris"}',
    });
  });

  it("refuses two tools of one name in a list", () => {
    expect(() => createSentinelParser({ tools: [weather, { ...weather }] })).toThrow(
      'createSentinelParser: two tools are named "get_weather"',
    );
  });
});
