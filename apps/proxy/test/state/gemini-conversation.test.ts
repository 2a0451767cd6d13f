import type { StoredStateOptions } from "@proxy/adapter-http-responses";
import { openSqliteStore } from "@proxy/adapter-store-sql";
import type { BackendRequest } from "@proxy/core";
import { createScriptedBackend, type Script } from "@proxy/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { serveApp } from "../support/serve-app.js";

const toolBlock = (name: string, args: Record<string, unknown>) =>
  `<tool_call>${JSON.stringify({ name, arguments: JSON.stringify(args) })}</tool_call>`;

const seen = (request: BackendRequest | undefined) => JSON.stringify(request ?? {});

const tools = [
  {
    functionDeclarations: [
      {
        name: "get_weather",
        description: "Weather of a city",
        parameters: { type: "OBJECT", properties: { city: { type: "STRING" } }, required: ["city"] },
      },
    ],
  },
];

interface Answer {
  candidates: Array<{ content: { parts: Array<Record<string, unknown>> }; finishReason?: string }>;
}

describe("POST /v1/gemini with a conversation key (scripted backend, SQLite in memory)", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  const start = async (script: Script, stored: Partial<StoredStateOptions> = {}, apiKeys?: string[]) => {
    const store = await openSqliteStore(":memory:");
    const backend = createScriptedBackend(script);
    const served = await serveApp(backend, {
      ...(apiKeys ? { apiKeys } : {}),
      stored: {
        store,
        ttlMs: 86_400_000,
        maxResponseBytes: 1 << 24,
        replicaId: "test",
        pollMs: 50,
        autocreateConversations: true,
        ...stored,
      },
    });
    closers.push(async () => {
      await served.close();
      await store.close();
    });
    const post = (body: unknown, key?: string) =>
      fetch(`${served.url}/v1/gemini`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(key ? { "x-goog-api-key": key } : {}) },
        body: JSON.stringify(body),
      });
    return { backend, post };
  };

  for (const stream of [false, true])
    it(`a tool round trip sends only the functionResponse the second time (stream: ${stream})`, async () => {
      const { backend, post } = await start([
        { chunks: [toolBlock("get_weather", { city: "Paris" })] },
        { chunks: ["It is sunny in Paris."] },
        { chunks: ["You asked about Paris."] },
      ]);
      const read = async (res: Response): Promise<Answer> => {
        expect(res.status).toBe(200);
        if (!stream) return (await res.json()) as Answer;
        const chunks = (await res.text())
          .split("\n")
          .filter((line) => line.startsWith("data: "))
          .map((line) => JSON.parse(line.slice(6)) as Answer);
        return {
          candidates: [{ content: { parts: chunks.flatMap((c) => c.candidates[0]?.content.parts ?? []) } }],
        };
      };
      const first = await read(
        await post({ model: "m", conversation: "trip-1", input: "Weather in Paris?", tools, stream }),
      );
      const call = first.candidates[0]?.content.parts.find((p) => "functionCall" in p)?.functionCall as {
        id: string;
        name: string;
        args: unknown;
      };
      expect(call).toMatchObject({ name: "get_weather", args: { city: "Paris" } });

      const second = await read(
        await post({
          model: "m",
          conversation: "trip-1",
          contents: [
            {
              role: "user",
              parts: [
                { functionResponse: { id: call.id, name: "get_weather", response: { output: "sunny" } } },
              ],
            },
          ],
          tools,
          stream,
        }),
      );
      expect(JSON.stringify(second)).toContain("sunny in Paris");
      const history = seen(backend.requests.at(1));
      expect(history).toContain("Weather in Paris?");
      expect(history).toContain("get_weather");
      expect(history).toContain(call.id);
      expect(history).toContain("sunny");

      // The third turn sees the whole tool round trip and the model's answer to it.
      await read(await post({ model: "m", conversation: "trip-1", input: "Which city?", tools, stream }));
      const third = seen(backend.requests.at(2));
      for (const text of ["Weather in Paris?", call.id, "sunny", "It is sunny in Paris.", "Which city?"])
        expect(third).toContain(text);
    });

  it("another API key using the same name gets a conversation of its own; A's history never reaches it", async () => {
    const { backend, post } = await start(() => ({ chunks: ["ok"] }), {}, ["key-a", "key-b"]);
    expect((await post({ model: "m", conversation: "mine", input: "secret of A" }, "key-a")).status).toBe(
      200,
    );
    // Names are per owner: B neither learns that A uses "mine" (no 404) nor reads A's history.
    const res = await post({ model: "m", conversation: "mine", input: "let me in" }, "key-b");
    expect(res.status).toBe(200);
    expect(JSON.stringify(backend.requests.at(-1))).not.toContain("secret of A");
  });

  it("without PROXY_CONVERSATIONS_AUTOCREATE an unknown key is a 404 naming it", async () => {
    const { backend, post } = await start(() => ({ chunks: ["ok"] }), { autocreateConversations: false });
    const res = await post({ model: "m", conversation: "nowhere", input: "hi" });
    expect(res.status).toBe(404);
    expect(JSON.stringify(await res.json())).toContain("nowhere");
    expect(backend.requests).toHaveLength(0);
  });

  it("without a store (PROXY_STORE=none) `conversation` is a Google-shaped 400 naming it", async () => {
    const served = await serveApp(createScriptedBackend([{ chunks: ["hi"] }]));
    closers.push(served.close);
    const res = await fetch(`${served.url}/v1/gemini`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "m", conversation: "c1", input: "hi" }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { status: string; message: string } };
    expect(body.error.status).toBe("INVALID_ARGUMENT");
    expect(body.error.message).toContain("conversation");
  });
});
