import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postChat, startGateway, type TestGateway } from "./support/gateway.js";

/** A JSON object nested `depth` levels deep under `key`, written as text (no recursion anywhere). */
const nested = (depth: number, key: string) => `${`{"${key}":`.repeat(depth)}{}${"}".repeat(depth)}`;

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startGateway([{ chunks: ["never reached"] }]);
});
afterAll(() => gateway.close());

const errorOf = (text: string) =>
  (JSON.parse(text) as { error: { param: string | null; code: string } }).error;

describe("bodies nothing behind the edge can carry are 400s naming the field", () => {
  it("a lone surrogate in a message is refused before the backend is asked", async () => {
    const body = `{"model":"gpt-test","messages":[{"role":"user","content":"hi \\ud800 there"}]}`;
    const res = await postChat(gateway, body);
    expect(res.status).toBe(400);
    expect(errorOf(res.text)).toMatchObject({ param: "messages[0].content", code: "invalid_unicode" });
  });

  it("a lone surrogate in a tool description or the model name names that field", async () => {
    const tool = `{"type":"function","function":{"name":"f","description":"x\\udfff","parameters":{}}}`;
    const res = await postChat(
      gateway,
      `{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"tools":[${tool}]}`,
    );
    expect(errorOf(res.text)).toMatchObject({ param: "tools[0].function.description" });
    const model = await postChat(
      gateway,
      `{"model":"gpt\\ud83d","messages":[{"role":"user","content":"hi"}]}`,
    );
    expect(errorOf(model.text)).toMatchObject({ param: "model", code: "invalid_unicode" });
  });

  it("paired surrogates (emoji) pass", async () => {
    const g = await startGateway([{ chunks: ["ok"] }]);
    try {
      const res = await postChat(
        g,
        `{"model":"gpt-test","messages":[{"role":"user","content":"hi \\ud83d\\ude00"}]}`,
      );
      expect(res.status).toBe(200);
    } finally {
      await g.close();
    }
  });

  it("a 10k-level nested tool schema is a 400 naming the field, not a 502 stack overflow", async () => {
    const tool = `{"type":"function","function":{"name":"f","parameters":${nested(10_000, "items")}}}`;
    const res = await postChat(
      gateway,
      `{"model":"gpt-test","messages":[{"role":"user","content":"hi"}],"tools":[${tool}]}`,
    );
    expect(res.status).toBe(400);
    const error = errorOf(res.text);
    expect(error.code).toBe("nesting_too_deep");
    expect(error.param).toMatch(/^tools\[0\]\.function\.parameters\.items\.items/);
    expect(gateway.backend.requests).toHaveLength(0);
  });
});
