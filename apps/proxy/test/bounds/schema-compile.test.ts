import { createScriptedBackend } from "@proxy/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayOver, type ReliabilityGateway } from "../reliability/support.js";
import { calmestStall, postJson } from "./support.js";

const BOUND_MS = 250;

/** The schema: 3,000 required string properties (92 KB), 2.3 s of ajv and then a stack overflow. */
const wideSchema = (n: number, tag: string) => {
  const properties: Record<string, object> = {};
  for (let i = 0; i < n; i++) properties[`${tag}_${i}`] = { type: "string", description: `field ${i}` };
  return { type: "object", properties, required: Object.keys(properties), additionalProperties: false };
};

/** Three Chat bodies with one strict tool of `width` properties, distinct per attempt (no compile cache hit). */
const strictChatBodies = (name: string, width: number, tag: string): string[] =>
  [0, 1, 2].map((attempt) =>
    JSON.stringify({
      model: "m",
      messages: [{ role: "user", content: "hi" }],
      tools: [
        {
          type: "function",
          function: { name, strict: true, parameters: wideSchema(width, `${tag}${attempt}`) },
        },
      ],
    }),
  );

describe("strict-schema compilation is bounded (real gateway, in-process loop monitor)", {
  timeout: 120_000,
}, () => {
  let g: ReliabilityGateway;
  beforeAll(async () => {
    g = await gatewayOver(createScriptedBackend(() => ({ chunks: ["ok"] })));
  });
  afterAll(() => g?.close());

  it("Chat: a 3,000-property strict schema is a 400 naming the tool, without a stall", async () => {
    const bodies = strictChatBodies("big_form", 3000, "a");
    const { worst, result } = await calmestStall(async (attempt) => {
      const res = await postJson(`${g.url}/v1/chat/completions`, bodies[attempt] as string);
      return {
        status: res.status,
        json: (await res.json()) as { error: { message: string; param: string } },
      };
    }, BOUND_MS);
    expect(result.status).toBe(400);
    expect(result.json.error.param).toBe("tools");
    expect(result.json.error.message).toContain("big_form");
    expect(result.json.error.message).toContain("128");
    expect(worst).toBeLessThan(BOUND_MS);
  });

  it("Messages (strict tool) and Gemini (VALIDATED) refuse it in their own shapes", async () => {
    const schema = wideSchema(3000, "m");
    const messages = await postJson(`${g.url}/v1/messages`, {
      model: "m",
      max_tokens: 16,
      messages: [{ role: "user", content: "hi" }],
      tools: [{ name: "big_form", strict: true, input_schema: schema }],
    });
    expect(messages.status).toBe(400);
    const mj = (await messages.json()) as { type: string; error: { type: string; message: string } };
    expect(mj).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    expect(mj.error.message).toContain("big_form");
    const gemini = await postJson(`${g.url}/v1beta/models/m:generateContent`, {
      contents: [{ role: "user", parts: [{ text: "hi" }] }],
      tools: [{ functionDeclarations: [{ name: "big_form", parameters: schema }] }],
      toolConfig: { functionCallingConfig: { mode: "VALIDATED" } },
    });
    expect(gemini.status).toBe(400);
    const gj = (await gemini.json()) as { error: { status: string; message: string } };
    expect(gj.error.status).toBe("INVALID_ARGUMENT");
    expect(gj.error.message).toContain("big_form");
  });

  it("a strict schema within the bound (120 properties) compiles without a stall and the turn runs", async () => {
    const bodies = strictChatBodies("form", 120, "b");
    const { worst, result } = await calmestStall(async (attempt) => {
      const res = await postJson(`${g.url}/v1/chat/completions`, bodies[attempt] as string);
      return { status: res.status };
    }, BOUND_MS);
    expect(result.status).toBe(200);
    expect(worst).toBeLessThan(BOUND_MS);
  });
});
