import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createScriptedBackend } from "@proxy/core/testing";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/config.js";
import { startGateway } from "../../src/gateway.js";
import {
  type CodexGateway,
  gatewayOver,
  gatewayOverCodex,
  type ReliabilityGateway,
} from "../reliability/support.js";
import { PHOTO } from "../support/image-server.js";
import { calmestStall, postJson, randomRun } from "./support.js";

const BOUND_MS = 250;
const conversation = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i}` }));

/** One streamed chunk whose content delta is `mb` MiB of "x", then the end of the stream. */
const sse = (mb: number) =>
  Buffer.from(
    `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "u", choices: [{ index: 0, delta: { content: "x".repeat(mb * 1024 * 1024) } }] })}\n\n` +
      `data: ${JSON.stringify({ id: "c", object: "chat.completion.chunk", model: "u", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`,
  );

/**
 * An OpenAI-compatible upstream answering from bytes built up front (a scripted upstream in this
 * process would itself hold the loop while serialising 32 MB): "huge" gets a 32 MiB delta, else 2 MiB.
 */
const startPrebuiltUpstream = async () => {
  const answers = { huge: sse(32), large: sse(2) };
  const server = createServer((req, res) => {
    if (req.method === "GET")
      return void res
        .writeHead(200, { "content-type": "application/json" })
        .end('{"object":"list","data":[]}');
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end(body.includes("huge") ? answers.huge : answers.large);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

describe("large bodies and huge upstream deltas (real gateway, in-process loop monitor)", {
  timeout: 120_000,
}, () => {
  let g: ReliabilityGateway;
  beforeAll(async () => {
    g = await gatewayOver(createScriptedBackend(() => ({ chunks: ["ok"] })));
  });
  afterAll(() => g?.close());

  it("a 1.8 MB body of 50,000 messages is a 400 naming `messages` (it held the loop 0.27 s)", async () => {
    const body = JSON.stringify({ model: "m", max_tokens: 10, messages: conversation(50_000) });
    for (const path of ["/v1/chat/completions", "/v1/messages"]) {
      const { worst, result } = await calmestStall(async () => {
        const res = await postJson(`${g.url}${path}`, body);
        return { status: res.status, text: await res.text() };
      }, BOUND_MS);
      expect(result.status).toBe(400);
      expect(result.text).toContain("'messages'");
      expect(result.text).toContain("at most 10000 items");
      expect(worst).toBeLessThan(BOUND_MS);
    }
  });

  it("values nested below the array limit are bounded too: 2,000 messages of 20 blocks is a 400", async () => {
    const messages = Array.from({ length: 2_000 }, () => ({
      role: "user",
      content: Array.from({ length: 20 }, () => ({ type: "text", text: "a" })),
    }));
    const body = JSON.stringify({ model: "m", messages });
    const { worst, result } = await calmestStall(async () => {
      const res = await postJson(`${g.url}/v1/chat/completions`, body);
      return { status: res.status, json: (await res.json()) as { error: { code: string; message: string } } };
    }, BOUND_MS);
    expect(result.status).toBe(400);
    expect(result.json.error.code).toBe("body_too_complex");
    expect(result.json.error.message).toContain("100000 JSON values");
    expect(worst).toBeLessThan(BOUND_MS);
  });

  it("10,000 messages, the most one request may hold, run without a long stall", async () => {
    const body = JSON.stringify({
      model: "m",
      messages: conversation(9_999).concat({ role: "user", content: "go" }),
    });
    const { worst, result } = await calmestStall(async () => {
      const res = await postJson(`${g.url}/v1/chat/completions`, body);
      return { status: res.status };
    }, BOUND_MS);
    expect(result.status).toBe(200);
    expect(worst).toBeLessThan(BOUND_MS);
  });

  it("an OpenAI-compatible upstream's single 32 MB delta ends the turn with a clear error, without a stall", async () => {
    const upstream = await startPrebuiltUpstream();
    const config = resolveConfig({
      env: {
        PROXY_MODELS: JSON.stringify([{ id: "local", backend: "openai-compatible", baseUrl: upstream.url }]),
      },
      flags: { port: "0" },
    });
    const gateway = await startGateway(config, { logger: pino({ level: "silent" }) });
    try {
      for (const stream of [false, true]) {
        const ask = (content: string) =>
          postJson(`${gateway.url}/v1/chat/completions`, {
            model: "local",
            stream,
            messages: [{ role: "user", content }],
          });
        const huge = await calmestStall(async () => {
          const res = await ask("huge");
          return { status: res.status, text: await res.text() };
        }, BOUND_MS);
        if (stream) expect(huge.result.text).toContain("sent an event longer than");
        else {
          expect(huge.result.status).toBe(502);
          expect(huge.result.text).toContain("sent an event longer than 4194304 characters");
        }
        expect(huge.worst).toBeLessThan(BOUND_MS);
        // A 2 MiB delta is within the bound and relayed whole.
        const large = await calmestStall(async () => {
          const res = await ask("large");
          return { status: res.status, length: (await res.text()).length };
        }, BOUND_MS);
        expect(large.result.status).toBe(200);
        expect(large.result.length).toBeGreaterThan(2 * 1024 * 1024);
        expect(large.worst).toBeLessThan(BOUND_MS);
      }
    } finally {
      await gateway.shutdown("test done");
      await upstream.close();
    }
  });
});

describe("large ordinary inputs over the real codex binary (real gateway, in-process loop monitor)", {
  timeout: 120_000,
}, () => {
  let g: CodexGateway;
  beforeAll(async () => {
    g = await gatewayOverCodex(() => ({ text: "I see it." }));
  });
  afterAll(() => g?.close());

  type Answer = {
    readonly choices?: ReadonlyArray<{ readonly message: { readonly content: string } }>;
    readonly content?: ReadonlyArray<{ readonly text: string }>;
  };
  /** What codex sent the model provider in its last request. */
  const upstream = () => JSON.stringify(g.provider.requests.at(-1)?.body.input ?? []);

  it("a 5 MB photo inline is answered on Chat and Messages, and the model receives it whole", async () => {
    const data = PHOTO().toString("base64");
    const chat = JSON.stringify({
      model: "m",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is in this photo?" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${data}` } },
          ],
        },
      ],
    });
    const messages = JSON.stringify({
      model: "m",
      max_tokens: 100,
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data } },
            { type: "text", text: "What is in this photo?" },
          ],
        },
      ],
    });
    for (const [path, body, answer] of [
      ["/v1/chat/completions", chat, (j: Answer) => j.choices?.[0]?.message.content],
      ["/v1/messages", messages, (j: Answer) => j.content?.[0]?.text],
    ] as const) {
      const { worst, result } = await calmestStall(async () => {
        const res = await postJson(`${g.url}${path}`, body);
        return { status: res.status, json: (await res.json()) as Answer };
      }, BOUND_MS);
      // Before: 504 "the client stopped reading: more than 2097152 bytes of backend events were waiting".
      expect([path, result.status, answer(result.json)]).toEqual([path, 200, "I see it."]);
      expect(upstream()).toContain(`data:image/png;base64,${data}`);
      expect(worst).toBeLessThan(BOUND_MS);
    }
  });

  it("a conversation of 3 MiB of text is answered (codex compacts what exceeds the model's context itself)", async () => {
    const turns = Array.from({ length: 24 }, (_, i) => ({
      role: i % 2 ? "assistant" : "user",
      content: `${i}:${randomRun(128 * 1024)}`,
    }));
    const body = JSON.stringify({
      model: "m",
      stream: true,
      messages: [...turns, { role: "user", content: "and now?" }],
    });
    const { worst, result } = await calmestStall(async () => {
      const res = await postJson(`${g.url}/v1/chat/completions`, body);
      return { status: res.status, text: await res.text() };
    }, BOUND_MS);
    // Before: an error event, "the client stopped reading: more than 2097152 bytes of backend events were waiting".
    expect(result.status).toBe(200);
    expect(result.text).toContain('"content":"I see it."');
    expect(result.text).toContain('"finish_reason":"stop"');
    expect(result.text).not.toContain("stopped reading");
    expect(result.text).toContain("data: [DONE]");
    expect(upstream()).toContain("and now?");
    expect(worst).toBeLessThan(BOUND_MS);
  });
});
