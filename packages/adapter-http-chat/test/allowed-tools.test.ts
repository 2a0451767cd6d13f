import { afterEach, describe, expect, it } from "vitest";
import { postChat, startGateway, type TestGateway } from "./support/gateway.js";
import { TIME_TOOL, toolBlock, USER_ASKS, WEATHER_TOOL } from "./support/scripts.js";

let gateway: TestGateway | undefined;
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});

const allowedTime = {
  type: "allowed_tools",
  mode: "auto",
  tools: [{ type: "function", function: { name: "get_time" } }],
};

describe("allowed_tools means what it means on /v1/responses", () => {
  it("offers only the listed tools to the backend", async () => {
    gateway = await startGateway([{ chunks: "ok" }]);
    const res = await postChat(gateway, {
      model: "gpt-test",
      messages: USER_ASKS,
      tools: [WEATHER_TOOL, TIME_TOOL],
      tool_choice: allowedTime,
    });
    expect(res.status).toBe(200);
    const instructions = gateway.backend.requests[0]!.instructions;
    expect(instructions).toContain("get_time");
    expect(instructions).not.toContain("get_weather");
  });

  it("a call to a defined but not allowed tool is not a call", async () => {
    gateway = await startGateway([{ chunks: toolBlock("get_weather", { city: "Paris" }) }]);
    const res = await postChat(gateway, {
      model: "gpt-test",
      messages: USER_ASKS,
      tools: [WEATHER_TOOL, TIME_TOOL],
      tool_choice: allowedTime,
    });
    const completion = JSON.parse(res.text) as { choices: Array<{ message: { tool_calls?: unknown[] } }> };
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
  });
});
