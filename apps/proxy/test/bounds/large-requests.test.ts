import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createScriptedBackend } from "@proxy/core/testing";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/config.js";
import { startGateway } from "../../src/gateway.js";
import { gatewayOver, type ReliabilityGateway } from "../reliability/support.js";
import { calmestStall, postJson } from "./support.js";

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
