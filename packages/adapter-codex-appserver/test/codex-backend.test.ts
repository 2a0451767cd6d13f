import { type GatewayError, isGatewayError } from "@proxy/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collect, type RealHarness, request, startRealHarness, textOf } from "./helpers.js";

const PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

let h: RealHarness;
beforeAll(async () => {
  h = await startRealHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe("codex backend over the real app-server", () => {
  it("streams reasoning, text chunks, usage and finish in order", async () => {
    h.provider.script({
      reasoning: "thinking it over",
      chunks: ["Hel", "lo ", "world"],
      usage: { inputTokens: 21, outputTokens: 5 },
    });
    const events = await collect(h.backend.stream(request(), { signal: new AbortController().signal }));
    expect(events.map((e) => e.type)).toEqual([
      "stream-start",
      "reasoning-delta",
      "text-delta",
      "text-delta",
      "text-delta",
      "usage",
      "finish",
    ]);
    expect(events.filter((e) => e.type === "text-delta").map((e) => e.delta)).toEqual([
      "Hel",
      "lo ",
      "world",
    ]);
    expect(events[1]).toEqual({ type: "reasoning-delta", delta: "thinking it over" });
    expect(events[5]).toMatchObject({
      type: "usage",
      usage: { inputTokens: 21, outputTokens: 5, totalTokens: 26 },
    });
    expect(events[6]).toEqual({ type: "finish", finish: { reason: "stop", raw: "completed" } });
    expect(events[0]).toMatchObject({ type: "stream-start", model: "scripted-model" });
  });

  for (const model of ["scripted-model", "gpt-6.1-sol"]) {
    it(`sends instructions as the first developer message and history with roles, and no tools (${model})`, async () => {
      h.provider.script({ text: "ok" });
      const before = h.provider.requests.length;
      const events = await collect(
        h.backend.stream(
          request({
            model,
            instructions: "GATEWAY SYSTEM PROMPT",
            history: [
              { role: "user", content: [{ type: "text", text: "first question" }] },
              { role: "assistant", content: [{ type: "text", text: "first answer" }] },
              { role: "developer", content: [{ type: "text", text: "tool result: 42" }] },
              { role: "user", content: [{ type: "image", url: PNG }] },
            ],
            input: [{ type: "text", text: "second question" }],
          }),
          { signal: new AbortController().signal },
        ),
      );
      expect(textOf(events)).toBe("ok");
      const body = h.provider.requests[before]?.body ?? {};
      const input = body.input as Array<Record<string, unknown>>;
      const messages = input.map((i) => ({ type: i.type, role: i.role, content: i.content }));
      // A catalog model may repeat the base-instructions message (reference §1.2); never anything else first.
      const dev = messages.filter(
        (m, i) => i < 2 && m.role === "developer" && JSON.stringify(m.content).includes("GATEWAY"),
      );
      expect(messages[0]).toEqual({
        type: "message",
        role: "developer",
        content: [{ type: "input_text", text: "GATEWAY SYSTEM PROMPT" }],
      });
      expect(messages.slice(dev.length)).toEqual([
        { type: "message", role: "user", content: [{ type: "input_text", text: "first question" }] },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "first answer" }] },
        { type: "message", role: "developer", content: [{ type: "input_text", text: "tool result: 42" }] },
        { type: "message", role: "user", content: [{ type: "input_image", image_url: PNG }] },
        { type: "message", role: "user", content: [{ type: "input_text", text: "second question" }] },
      ]);
      expect(body.tools ?? []).toEqual([]);
      expect(body.instructions).toBeUndefined();
      const raw = JSON.stringify(body);
      expect(raw).not.toContain("additional_tools");
      expect(raw).not.toContain("<environment_context>");
      expect(raw).not.toContain("skills_instructions");
      expect(raw).not.toContain("permissions instructions");
    });
  }

  it("rejects a remote image URL before starting a turn", async () => {
    const before = h.provider.requests.length;
    const stream = h.backend.stream(
      request({ input: [{ type: "image", url: "https://example.com/cat.png" }] }),
      { signal: new AbortController().signal },
    );
    const failure = await collect(stream).catch((e: unknown) => e);
    expect(isGatewayError(failure)).toBe(true);
    expect(failure).toMatchObject({ kind: "invalid_request", param: "image_url" });
    expect(h.provider.requests.length).toBe(before);
  });

  it("sends an input data: image (even detail low) as input_image and passes effort and outputSchema per request", async () => {
    h.provider.script({ text: '{"answer":1}' });
    const schema = {
      type: "object",
      properties: { answer: { type: "number" } },
      required: ["answer"],
      additionalProperties: false,
    };
    const before = h.provider.requests.length;
    await collect(
      h.backend.stream(
        request({
          model: "gpt-5.5",
          reasoningEffort: "high",
          outputSchema: schema,
          input: [
            { type: "text", text: "describe" },
            { type: "image", url: PNG, detail: "low" },
          ],
        }),
        { signal: new AbortController().signal },
      ),
    );
    const body = h.provider.requests[before]?.body as {
      model?: string;
      reasoning?: object;
      text?: { format?: object };
      input?: unknown;
    };
    expect(body.model).toBe("gpt-5.5");
    expect(body.reasoning).toMatchObject({ effort: "high" });
    expect(body.text?.format).toMatchObject({ type: "json_schema", schema });
    expect(JSON.stringify(body.input)).toContain(`"image_url":"${PNG}"`);
    expect(JSON.stringify(body.input)).not.toContain("image content omitted");
  });

  it.each([
    [{ status: 429, body: { error: { message: "slow down" } } }, "rate_limited", "rate_limit_exceeded"],
    [{ status: 401, body: { error: { message: "bad key" } } }, "backend_auth", "backend_auth"],
    [{ status: 500 }, "backend_error", "internalServerError"],
    [
      { event: "failed", code: "context_length_exceeded", message: "too long" },
      "context_length_exceeded",
      "context_length_exceeded",
    ],
  ] as const)(
    "maps provider failure %j to a GatewayError thrown before stream-start",
    async (fail, kind, code) => {
      h.provider.script({ fail });
      // The provider refused before answering anything: a refusal (an HTTP status), not a stream error.
      const error = (await collect(
        h.backend.stream(request(), { signal: new AbortController().signal }),
      ).then(
        () => undefined,
        (e: unknown) => e,
      )) as GatewayError;
      expect(isGatewayError(error)).toBe(true);
      expect(error).toMatchObject({ kind, code });
      if (kind === "backend_auth") expect(error.message).toContain("`codex login`");
    },
  );

  it("abort interrupts the turn: the iterable ends and the provider sees its connection close", async () => {
    h.provider.script({ chunks: ["partial "], hang: true });
    const before = h.provider.requests.length;
    const controller = new AbortController();
    const seen: string[] = [];
    for await (const event of h.backend.stream(request(), { signal: controller.signal })) {
      seen.push(event.type);
      if (event.type === "text-delta") controller.abort();
    }
    expect(seen).toEqual(["stream-start", "text-delta"]);
    const upstream = await h.provider.waitFor((r) => r.index === before && r.disconnected);
    expect(upstream.disconnected).toBe(true);
    expect(h.backend.readiness()).toMatchObject({ restarts: 0, inFlight: 0 });
  });

  it("a consumer that stops iterating also interrupts the upstream request", async () => {
    h.provider.script({ chunks: ["partial "], hang: true });
    const before = h.provider.requests.length;
    for await (const event of h.backend.stream(request(), { signal: new AbortController().signal })) {
      if (event.type === "text-delta") break;
    }
    await h.provider.waitFor((r) => r.index === before && r.disconnected);
    h.provider.script({ text: "still fine" });
    const events = await collect(h.backend.stream(request(), { signal: new AbortController().signal }));
    expect(textOf(events)).toBe("still fine");
  });

  it("lists the app-server's models and reports readiness", async () => {
    const models = await h.backend.listModels();
    expect(models.map((m) => m.id)).toContain("gpt-6.1-sol");
    expect(models.every((m) => m.ownedBy === "codex")).toBe(true);
    expect(h.backend.readiness()).toMatchObject({
      ready: true,
      inFlight: 0,
      queued: 0,
      capacity: 16,
      restarts: 0,
    });
  });

  it("checkAuth: a custom model provider needs no OpenAI login", async () => {
    expect(await h.backend.checkAuth()).toMatchObject({ authenticated: true, requiresOpenaiAuth: false });
  });
});
