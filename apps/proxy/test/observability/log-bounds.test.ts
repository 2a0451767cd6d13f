import { createScriptedBackend } from "@proxy/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayOver, type ReliabilityGateway } from "../reliability/support.js";

const post = (url: string, path: string, body: object, requestId: string) =>
  fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-request-id": requestId },
    body: JSON.stringify(body),
  }).then(async (res) => {
    await res.arrayBuffer();
    return res.status;
  });

/** The longest tool name a client may give (64 characters), thousands of times over. */
const TOOLS = Array.from({ length: 5000 }, (_, i) => ({
  type: "function",
  function: { name: `t${String(i).padStart(5, "0")}_${"n".repeat(57)}`, parameters: { type: "object" } },
}));

describe("a request's log lines stay lines, whatever the client sends", { timeout: 60_000 }, () => {
  let g: ReliabilityGateway;
  beforeAll(async () => {
    const call = (i: number) =>
      `<tool_call>${JSON.stringify({ name: TOOLS[i]?.function.name, arguments: JSON.stringify({ i }) })}</tool_call>`;
    g = await gatewayOver(
      createScriptedBackend(() => ({ chunks: [Array.from({ length: 100 }, (_, i) => call(i)).join("")] })),
      { PROXY_STORE: "none", PROXY_TOOL_MODE: "prompt" },
    );
  });
  afterAll(() => g?.close());

  const lineOf = async (requestId: string) => {
    for (let i = 0; i < 50 && !g.logs.some((l) => l.requestId === requestId && l.msg === "request"); i++)
      await new Promise((r) => setTimeout(r, 20));
    const line = g.logs.find((l) => l.requestId === requestId && l.msg === "request");
    expect(line).toBeDefined();
    return line as Record<string, unknown>;
  };

  it("a model name of 4.5 MB: the line holds none of it", async () => {
    const status = await post(
      g.url,
      "/v1/chat/completions",
      { model: "q".repeat(4_500_000), messages: [{ role: "user", content: "hi" }] },
      "log-huge-model",
    );
    expect(status).toBe(400);
    expect(JSON.stringify(await lineOf("log-huge-model")).length).toBeLessThan(4096);
  });

  it("5,000 tools offered and 100 called: names and ids are listed to the first 32", async () => {
    const status = await post(
      g.url,
      "/v1/chat/completions",
      { model: "m".repeat(256), messages: [{ role: "user", content: "hi" }], tools: TOOLS },
      "log-many-tools",
    );
    expect(status).toBe(200);
    const line = await lineOf("log-many-tools");
    expect(line.toolCalls).toBe(100);
    expect(line.model).toBe("m".repeat(256));
    const turn = line.turn as { toolNames: string[]; callIds: string[] };
    expect(turn.toolNames).toHaveLength(33);
    expect(turn.toolNames.at(-1)).toBe("… (4968 more)");
    expect(turn.callIds).toHaveLength(33);
    expect(JSON.stringify(line).length).toBeLessThan(16 * 1024);
  });

  it("a path of 10,000 characters is cut in the line", async () => {
    const status = await post(g.url, `/v1/${"p".repeat(10_000)}`, {}, "log-long-path");
    expect(status).toBe(404);
    const line = await lineOf("log-long-path");
    expect(String(line.route).length).toBeLessThanOrEqual(300);
  });
});
