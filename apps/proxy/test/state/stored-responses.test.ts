import { createOpenAI } from "@ai-sdk/openai";
import type { StoredStateOptions } from "@proxy/adapter-http-responses";
import { openSqliteStore } from "@proxy/adapter-store-sql";
import type { BackendRequest } from "@proxy/core";
import { backendStream, type TextBackend } from "@proxy/core/gateway";
import { createScriptedBackend, type Script } from "@proxy/core/testing";
import { tool as aiTool, generateText, stepCountIs } from "ai";
import OpenAI from "openai";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { serveApp } from "../support/serve-app.js";

const toolBlock = (name: string, args: Record<string, unknown>) =>
  `<tool_call>${JSON.stringify({ name, arguments: JSON.stringify(args) })}</tool_call>`;

const seen = (request: BackendRequest | undefined) => JSON.stringify(request ?? {});

describe("stored responses at the wire (scripted backend, SQLite in memory)", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  const start = async (
    script: Script,
    stored: Partial<StoredStateOptions> = {},
    wrap: (backend: TextBackend) => TextBackend = (backend) => backend,
  ) => {
    const store = await openSqliteStore(":memory:");
    const backend = createScriptedBackend(script);
    const served = await serveApp(wrap(backend), {
      stored: {
        store,
        ttlMs: 86_400_000,
        maxResponseBytes: 1 << 24,
        replicaId: "test",
        pollMs: 50,
        ...stored,
      },
    });
    closers.push(async () => {
      await served.close();
      await store.close();
    });
    const client = new OpenAI({ baseURL: `${served.url}/v1`, apiKey: "none", maxRetries: 0 });
    return { ...served, backend, store, client };
  };

  it("concurrent continuations of one response are two branches that never see each other", async () => {
    const { client, backend } = await start((request) => ({ chunks: [`ok ${request.input.length}`] }));
    const root = await client.responses.create({ model: "m", input: "root question" });
    const [left, right] = await Promise.all([
      client.responses.create({ model: "m", previous_response_id: root.id, input: "left branch" }),
      client.responses.create({ model: "m", previous_response_id: root.id, input: "right branch" }),
    ]);
    await client.responses.create({ model: "m", previous_response_id: left.id, input: "left again" });
    expect(seen(backend.requests.at(-1))).toContain("left branch");
    expect(seen(backend.requests.at(-1))).toContain("root question");
    expect(seen(backend.requests.at(-1))).not.toContain("right branch");
    await client.responses.create({ model: "m", previous_response_id: right.id, input: "right again" });
    expect(seen(backend.requests.at(-1))).not.toContain("left branch");
  });

  it("a response over PROXY_STORE_MAX_RESPONSE_BYTES is answered, not stored, with a warning header", async () => {
    const { url, client } = await start([{ chunks: ["x".repeat(2000)] }], { maxResponseBytes: 1000 });
    const res = await fetch(`${url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "big" }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-proxy-store-warning")).toMatch(/not stored: larger than 1000 bytes/);
    const body = (await res.json()) as { id: string; output: unknown[] };
    expect(body.output).toHaveLength(1);
    await expect(client.responses.retrieve(body.id)).rejects.toMatchObject({ status: 404 });
  });

  it("store:false is answered and not kept; input_items validates its paging parameters", async () => {
    const { client, url } = await start((request) => ({ chunks: [`seen ${request.input.length}`] }));
    const transient = await client.responses.create({ model: "m", input: "forget me", store: false });
    expect(transient).toMatchObject({ store: false });
    await expect(client.responses.retrieve(transient.id)).rejects.toMatchObject({ status: 404 });

    const kept = await client.responses.create({
      model: "m",
      input: [1, 2, 3, 4, 5].map((n) => ({ role: "user" as const, content: `part ${n}` })),
    });
    const page1 = await client.responses.inputItems.list(kept.id, { order: "asc", limit: 2 });
    expect(page1.data.map((i) => i.type === "message" && i.content)).toEqual([
      [{ type: "input_text", text: "part 1" }],
      [{ type: "input_text", text: "part 2" }],
    ]);
    expect(page1.has_more).toBe(true);
    const page2 = await client.responses.inputItems.list(kept.id, {
      order: "asc",
      limit: 2,
      after: page1.data.at(-1)?.id ?? "",
    });
    expect(page2.data.map((i) => i.id)).not.toContain(page1.data[0]?.id);
    expect(page2.data).toHaveLength(2);
    const bad = await fetch(`${url}/v1/responses/${kept.id}/input_items?limit=1000`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { param: string } }).error.param).toBe("limit");
  });

  it("AI SDK multi-step with store on: item_reference inputs are resolved from the store", async () => {
    const { url, backend } = await start([
      { chunks: ["Checking. ", toolBlock("get_weather", { city: "Paris" })] },
      { chunks: ["It is sunny."] },
    ]);
    const openai = createOpenAI({ baseURL: `${url}/v1`, apiKey: "none" });
    const result = await generateText({
      model: openai.responses("m"),
      prompt: "Weather in Paris?",
      tools: {
        get_weather: aiTool({ inputSchema: z.object({ city: z.string() }), execute: async () => "sunny" }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe("It is sunny.");
    // The second step refers back to the first step's items by id; the backend still saw the call.
    expect(seen(backend.requests[1])).toContain("get_weather");
    expect(seen(backend.requests[1])).toContain("Checking.");
  });

  it("a streamed response whose client leaves mid-turn is stored failed with what was sent, never in progress", async () => {
    const { url, client, backend } = await start([{ chunks: ["partial ", "never"], hangAfterChunks: 1 }]);
    const leave = new AbortController();
    const res = await fetch(`${url}/v1/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", input: "hi", stream: true }),
      signal: leave.signal,
    });
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes("partial")) text += new TextDecoder().decode((await reader.read()).value);
    const id = /"id":"(resp_[^"]+)"/.exec(text)?.[1] as string;
    leave.abort();
    let stored = await client.responses.retrieve(id).catch(() => undefined);
    for (let i = 0; stored === undefined && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stored = await client.responses.retrieve(id).catch(() => undefined);
    }
    expect(stored).toMatchObject({ status: "failed", error: { code: "cancelled" } });
    expect(stored?.output).toMatchObject([{ type: "message", status: "incomplete" }]);
    expect(stored?.output_text).toBe("partial ");
    expect(backend.aborts()).toBe(1);
    const replayed: string[] = [];
    for await (const event of await client.responses.retrieve(id, { stream: true }))
      replayed.push(event.type);
    expect(replayed.at(-1)).toBe("response.failed");
  });

  it("background: polled, resumed from starting_after, and cancelled on the same gateway", async () => {
    const { client, backend } = await start((request) =>
      seen(request).includes("hang")
        ? { chunks: ["a", "b", "c"], hangAfterChunks: 2 }
        : { chunks: ["one ", "two ", "three"], delayMs: 30 },
    );
    const started = await client.responses.create({ model: "m", input: "count", background: true });
    expect(started.status).toBe("queued");
    const resumed = await client.responses.retrieve(started.id, { stream: true, starting_after: 1 });
    const events: Array<{ type: string; sequence_number: number }> = [];
    for await (const event of resumed) events.push(event);
    expect(events[0]?.sequence_number).toBe(2);
    expect(events.at(-1)?.type).toBe("response.completed");
    expect((await client.responses.retrieve(started.id)).output_text).toBe("one two three");

    const hanging = await client.responses.create({ model: "m", input: "hang", background: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await client.responses.retrieve(hanging.id)).status).toBe("in_progress");
    const cancelled = await client.responses.cancel(hanging.id);
    expect(cancelled.status).toBe("cancelled");
    expect(backend.aborts()).toBe(1);
    await expect(
      client.responses.cancel((await client.responses.create({ model: "m", input: "plain" })).id),
    ).rejects.toMatchObject({ status: 400 });
  });

  it("background: queued until the backend takes the turn, then in_progress; the SDK's polling loop ends completed; cancel while queued", async () => {
    // A backend at capacity: no turn begins until `open` is called (as codex's admission queue holds it).
    let open = (): void => undefined;
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    const atCapacity = (inner: TextBackend): TextBackend => ({
      ...inner,
      stream: (request, options) =>
        backendStream(async function* () {
          await Promise.race([
            opened,
            new Promise((resolve) => options.signal.addEventListener("abort", resolve, { once: true })),
          ]);
          if (options.signal.aborted) return;
          yield* inner.stream(request, options).batches();
        }),
    });
    const { client } = await start(() => ({ chunks: ["one ", "two"], delayMs: 20 }), {}, atCapacity);

    const waiting = await client.responses.create({ model: "m", input: "never runs", background: true });
    const polled = await client.responses.create({ model: "m", input: "count", background: true });
    expect(polled).toMatchObject({ status: "queued", background: true });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await client.responses.retrieve(polled.id)).status).toBe("queued");
    const cancelled = await client.responses.cancel(waiting.id);
    expect(cancelled.status).toBe("cancelled");
    expect((await client.responses.retrieve(waiting.id)).status).toBe("cancelled");

    open();
    // OpenAI's documented polling loop.
    const statuses: string[] = [];
    let current = await client.responses.retrieve(polled.id);
    while (current.status === "queued" || current.status === "in_progress") {
      statuses.push(current.status);
      await new Promise((resolve) => setTimeout(resolve, 10));
      current = await client.responses.retrieve(polled.id);
    }
    expect(current).toMatchObject({ status: "completed", output_text: "one two" });
    expect(statuses).toContain("in_progress");
    expect(statuses.indexOf("in_progress")).toBeGreaterThan(statuses.lastIndexOf("queued"));

    // Streamed: `response.created` and `response.queued` (status queued), then `response.in_progress`.
    const stream = await client.responses.create({
      model: "m",
      input: "count",
      background: true,
      stream: true,
    });
    const events: Array<{ type: string; response?: { status?: string | undefined } }> = [];
    for await (const event of stream) events.push(event);
    expect(events.slice(0, 3).map((e) => [e.type, e.response?.status])).toEqual([
      ["response.created", "queued"],
      ["response.queued", "queued"],
      ["response.in_progress", "in_progress"],
    ]);
    expect(events.at(-1)?.type).toBe("response.completed");
  });

  it("PROXY_CONVERSATIONS_AUTOCREATE: a free-form conversation key starts a conversation", async () => {
    const { client, backend } = await start(() => ({ chunks: ["noted"] }), { autocreateConversations: true });
    await client.responses.create({ model: "m", conversation: "my-thread-42", input: "first message" });
    await client.responses.create({
      model: "m",
      conversation: { id: "my-thread-42" },
      input: "second message",
    });
    expect(seen(backend.requests.at(-1))).toContain("first message");
    const items = await client.conversations.items.list("my-thread-42", { order: "asc" });
    expect(items.data).toHaveLength(4);
  });

  it("without a store (PROXY_STORE=none) the stateful fields are refused as before", async () => {
    const served = await serveApp(createScriptedBackend([{ chunks: ["hi"] }]));
    closers.push(served.close);
    const client = new OpenAI({ baseURL: `${served.url}/v1`, apiKey: "none", maxRetries: 0 });
    await expect(
      client.responses.create({ model: "m", input: "x", previous_response_id: "resp_1" }),
    ).rejects.toMatchObject({ status: 400, param: "previous_response_id" });
    await expect(client.responses.retrieve("resp_1")).rejects.toMatchObject({ status: 404 });
    expect(await client.responses.create({ model: "m", input: "x" })).toMatchObject({ store: false });
  });
});
