import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startE2E, toolCallText } from "./e2e-gateway.js";
import { fn } from "./native-support.js";

const model = () => ({ chunks: ["Sure. ", toolCallText("get_weather", { city: "Paris" })] });
const tools = [
  {
    type: "function" as const,
    function: {
      name: "get_weather",
      parameters: { type: "object", properties: { city: { type: "string" } } },
    },
  },
];

interface Detail {
  status: number;
  toolCalls: number;
  bodies: boolean;
  client?: unknown;
  attempts: Array<{ raw: string; request?: unknown }>;
  decisions: Array<{ kind: string; text: string }>;
  output: { text: string; calls: Array<{ name: string; arguments: string }> };
  timings: { firstTokenMs?: number; totalMs?: number };
}

describe("inspector settings at the wire (real codex app-server)", { timeout: 120_000 }, () => {
  describe("off (the default)", () => {
    let e2e: Awaited<ReturnType<typeof startE2E>>;
    beforeAll(async () => {
      e2e = await startE2E(model);
    }, 60_000);
    afterAll(() => e2e?.close());

    it("serves no /ui at all", async () => {
      for (const path of ["/ui", "/ui/api/requests", "/ui/static/inspector.js"])
        expect((await fetch(`${e2e.url}${path}`)).status).toBe(404);
    });
  });

  describe("PROXY_INSPECTOR_BODIES=off on a gateway without keys", () => {
    let e2e: Awaited<ReturnType<typeof startE2E>>;
    beforeAll(async () => {
      e2e = await startE2E(model, { PROXY_INSPECTOR: "on", PROXY_INSPECTOR_BODIES: "off" });
    }, 60_000);
    afterAll(() => e2e?.close());

    it("keeps timings, counts and the parser's decisions, and no prompt, model text or arguments", async () => {
      const client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "none", maxRetries: 0 });
      await client.chat.completions.create({
        model: "m",
        tools,
        messages: [{ role: "user", content: "a very private prompt" }],
      });
      // Open: a gateway without API keys has no admin key to ask for.
      const list = (await (await fetch(`${e2e.url}/ui/api/requests`)).json()) as {
        requests: Array<{ seq: number }>;
      };
      expect(list.requests).toHaveLength(1);
      const res = await fetch(`${e2e.url}/ui/api/requests/${list.requests[0]?.seq}`);
      const text = await res.text();
      const detail = JSON.parse(text) as Detail;
      expect(detail).toMatchObject({ status: 200, toolCalls: 1, bodies: false });
      expect(detail.timings.firstTokenMs).toBeGreaterThan(0);
      expect(detail.timings.totalMs).toBeGreaterThanOrEqual(detail.timings.firstTokenMs ?? 0);
      expect(detail.decisions.map((d) => d.text)).toContain("block parsed: get_weather (json)");
      expect(detail.output.calls).toEqual([
        { name: "get_weather", id: expect.any(String), arguments: "[16 chars]" },
      ]);
      expect(detail.client).toBeUndefined();
      expect(detail.attempts[0]?.raw).toBe("");
      expect(detail.attempts[0]?.request).toBeUndefined();
      for (const secret of ["private prompt", "Paris", "Sure."]) expect(text).not.toContain(secret);
    });

    it("records every surface's turns under its own name", async () => {
      const res = await fetch(`${e2e.url}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
        body: JSON.stringify({ model: "m", max_tokens: 50, messages: [{ role: "user", content: "hi" }] }),
      });
      expect(res.status).toBe(200);
      const list = (await (await fetch(`${e2e.url}/ui/api/requests?surface=messages`)).json()) as {
        requests: Array<{ route: string; surface: string; status: number }>;
        facets: { surface: string[] };
      };
      expect(list.requests).toEqual([
        expect.objectContaining({ route: "/v1/messages", surface: "messages", status: 200 }),
      ]);
      expect(list.facets.surface).toEqual(["chat", "messages"]);
    });
  });

  describe("native tool mode", () => {
    let e2e: Awaited<ReturnType<typeof startE2E>>;
    beforeAll(async () => {
      e2e = await startE2E(() => ({ items: [fn("call_n1", "get_weather", { city: "Oslo" })] }), {
        PROXY_INSPECTOR: "on",
        PROXY_TOOL_MODE: "auto",
      });
    }, 60_000);
    afterAll(() => e2e?.close());

    it("shows the native tool list the backend was sent and the model's own call", async () => {
      const client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: "none", maxRetries: 0 });
      const res = await client.chat.completions.create({
        model: "m",
        tools,
        messages: [{ role: "user", content: "weather?" }],
      });
      expect(res.choices[0]?.message.tool_calls).toHaveLength(1);
      const detail = (await (await fetch(`${e2e.url}/ui/api/requests/1`)).json()) as {
        attempts: Array<{ request: { mode: string; nativeTools?: { tools: Array<{ name: string }> } } }>;
        decisions: Array<{ text: string }>;
        output: { calls: Array<{ name: string; arguments: string }> };
      };
      expect(detail.attempts[0]?.request.mode).toBe("native");
      expect(detail.attempts[0]?.request.nativeTools?.tools.map((t) => t.name)).toEqual(["get_weather"]);
      expect(detail.decisions.map((d) => d.text)).toContain(
        'native call get_weather (call_n1): {"city":"Oslo"}',
      );
      expect(detail.output.calls).toEqual([
        expect.objectContaining({ name: "get_weather", arguments: '{"city":"Oslo"}' }),
      ]);
    });
  });
});
