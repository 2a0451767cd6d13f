import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postRaw, startGateway, type TestGateway } from "./support/gateway.js";

const nested = (depth: number, key: string) => `${`{"${key}":`.repeat(depth)}{}${"}".repeat(depth)}`;

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startGateway([{ chunks: ["never reached"] }]);
});
afterAll(() => gateway.close());

const errorOf = (text: string) =>
  (JSON.parse(text) as { error: { param: string | null; code: string } }).error;

describe("bodies nothing behind the edge can carry are 400s naming the field", () => {
  it("lone surrogates in input, instructions or a tool description", async () => {
    const rows: ReadonlyArray<readonly [string, string]> = [
      [`{"model":"gpt-test","input":"a\\ud800"}`, "input"],
      [`{"model":"gpt-test","input":"a","instructions":"\\udc00b"}`, "instructions"],
      [
        `{"model":"gpt-test","input":[{"role":"user","content":[{"type":"input_text","text":"\\ud800"}]}]}`,
        "input[0].content[0].text",
      ],
      [
        `{"model":"gpt-test","input":"a","tools":[{"type":"function","name":"f","description":"\\ud800","parameters":{}}]}`,
        "tools[0].description",
      ],
    ];
    for (const [body, param] of rows) {
      const res = await postRaw(`${gateway.baseURL}/responses`, body);
      expect(res.status, body).toBe(400);
      expect(errorOf(res.text)).toMatchObject({ param, code: "invalid_unicode" });
    }
    const compact = await postRaw(`${gateway.baseURL}/responses/compact`, `{"model":"m\\ud800","input":"a"}`);
    expect(errorOf(compact.text)).toMatchObject({ param: "model", code: "invalid_unicode" });
    expect(gateway.backend.requests).toHaveLength(0);
  });

  it("a 10k-level nested tool schema is a 400 naming the field", async () => {
    const body = `{"model":"gpt-test","input":"a","tools":[{"type":"function","name":"f","parameters":${nested(10_000, "properties")}}]}`;
    const res = await postRaw(`${gateway.baseURL}/responses`, body);
    expect(res.status).toBe(400);
    const error = errorOf(res.text);
    expect(error.code).toBe("nesting_too_deep");
    expect(error.param).toMatch(/^tools\[0\]\.parameters\.properties\.properties/);
    expect(gateway.backend.requests).toHaveLength(0);
  });
});
