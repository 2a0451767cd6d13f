import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startUpstreamGateway } from "../e2e/upstream-gateway.js";

/**
 * A hostile OpenAI-compatible upstream: it echoes the gateway's key,
 * URL and address back in its errors, never ends a body, or asks for a retry in a thousand years.
 */
type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

const SECRET_PATH = "/secret-upstream-path/v1";
const UPSTREAM_KEY = "sk-upstream-0123456789abcdef";

const startHostile = async (onTurn: Handler, onModels?: (res: ServerResponse) => void) => {
  const server: Server = createServer((req, res) => {
    if (req.method === "GET" && req.url?.endsWith("/models")) {
      if (onModels) return onModels(res);
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ data: [{ id: "hostile" }] }));
    }
    let body = "";
    req.on("data", (b: Buffer) => {
      body += b.toString();
    });
    req.on("end", () => onTurn(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}${SECRET_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

/** The real gateway with one route `hostile` over `upstreamUrl`, keyed with UPSTREAM_KEY. */
const gatewayOver = async (upstreamUrl: string, env: Record<string, string> = {}) => {
  const gateway = await startUpstreamGateway(
    [],
    () => [{ id: "hostile", backend: "openai-compatible", baseUrl: upstreamUrl, apiKeyEnv: "HOSTILE_KEY" }],
    { HOSTILE_KEY: UPSTREAM_KEY, PROXY_STORE: "none", ...env },
  );
  return gateway;
};

/** One turn on each of the four surfaces, non-streaming and streaming. */
const SURFACES = [
  {
    name: "chat",
    path: "/v1/chat/completions",
    body: (text: string, stream: boolean) => ({
      model: "hostile",
      stream,
      messages: [{ role: "user", content: text }],
    }),
  },
  {
    name: "responses",
    path: "/v1/responses",
    body: (text: string, stream: boolean) => ({ model: "hostile", stream, input: text }),
  },
  {
    name: "messages",
    path: "/v1/messages",
    body: (text: string, stream: boolean) => ({
      model: "hostile",
      stream,
      max_tokens: 100_000_000,
      messages: [{ role: "user", content: text }],
    }),
  },
  {
    name: "gemini",
    path: "/v1beta/models/hostile:generateContent",
    streamPath: "/v1beta/models/hostile:streamGenerateContent?alt=sse",
    body: (text: string) => ({ contents: [{ role: "user", parts: [{ text }] }] }),
  },
] as const;

const post = async (base: string, surface: (typeof SURFACES)[number], text: string, stream: boolean) => {
  const path = stream && "streamPath" in surface ? surface.streamPath : surface.path;
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(surface.body(text, stream)),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
};

const sseChunk = (content: string) =>
  `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

describe("a hostile OpenAI-compatible upstream", { timeout: 60_000 }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("the route's key, URL, host:port and path never reach the client, on all four surfaces", async () => {
    let address = "";
    // Every way the upstream could echo what the gateway sent it.
    const upstream = await startHostile((req, body, res) => {
      const auth = String(req.headers.authorization);
      const echo = `${auth} at ${address}${req.url} (full ${req.headers.host}${req.url}; upstream http://${req.headers.host}${SECRET_PATH}), key ${UPSTREAM_KEY}`;
      if (body.includes("midstream")) {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(sseChunk("partial "));
        res.end(`data: ${JSON.stringify({ error: { message: echo } })}\n\n`);
        return;
      }
      const status = body.includes("auth")
        ? 401
        : body.includes("busy")
          ? 429
          : body.includes("down")
            ? 500
            : 400;
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body.includes("detail") ? { detail: echo } : { error: { message: echo } }));
    });
    cleanups.push(upstream.close);
    address = `127.0.0.1:${upstream.port}`;
    const gateway = await gatewayOver(upstream.url);
    cleanups.push(gateway.close);

    const leaks = [UPSTREAM_KEY, `127.0.0.1:${upstream.port}`, "secret-upstream-path"];
    let answers = 0;
    for (const surface of SURFACES)
      for (const stream of [false, true])
        for (const text of ["bad request", "auth", "busy", "down detail", "midstream"]) {
          const answer = await post(gateway.url, surface, text, stream);
          answers++;
          expect(answer.status, `${surface.name} ${text}`).toBeGreaterThanOrEqual(stream ? 200 : 400);
          for (const leak of leaks)
            expect(answer.text, `${surface.name} stream=${stream} ${text}`).not.toContain(leak);
          // The message still says what happened, with the secrets taken out.
          if (!answer.text.includes("partial") || text === "midstream")
            expect(answer.text, `${surface.name} ${text}`).toMatch(/route 'hostile'|Bearer \[redacted\]/);
        }
    expect(answers).toBe(40);
  });

  it("an upstream's Retry-After of years is passed on as at most one day (header and Gemini retryDelay)", async () => {
    const upstream = await startHostile((_req, body, res) => {
      const retryAfter = body.includes("date") ? "Fri, 31 Dec 9999 23:59:59 GMT" : "99999999999";
      res.writeHead(429, { "content-type": "application/json", "retry-after": retryAfter });
      res.end(JSON.stringify({ error: { message: "slow down" } }));
    });
    cleanups.push(upstream.close);
    const gateway = await gatewayOver(upstream.url);
    cleanups.push(gateway.close);
    for (const text of ["seconds", "date"]) {
      for (const surface of SURFACES) {
        const answer = await post(gateway.url, surface, text, false);
        expect(answer.status, surface.name).toBe(429);
        const header = Number(answer.headers.get("retry-after"));
        expect(header, `${surface.name} ${text}`).toBeGreaterThan(0);
        expect(header, `${surface.name} ${text}`).toBeLessThanOrEqual(86_400);
        if (surface.name === "gemini") {
          const delay = /"retryDelay":"(\d+)s"/.exec(answer.text)?.[1];
          expect(Number(delay)).toBeGreaterThan(0);
          expect(Number(delay)).toBeLessThanOrEqual(86_400);
        }
      }
    }
  });

  it("a /models probe whose body never ends is cut off after a bounded read", async () => {
    let sent = 0;
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const block = Buffer.alloc(64 * 1024, "a");
    const upstream = await startHostile(
      (_req, _body, res) => res.end(),
      (res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.write('{"data":[{"id":"');
        const pump = () => {
          while (!res.destroyed) {
            sent += block.length;
            if (!res.write(block)) return void res.once("drain", pump);
          }
        };
        res.on("close", closed);
        pump();
      },
    );
    cleanups.push(upstream.close);
    const gateway = await gatewayOver(upstream.url);
    cleanups.push(gateway.close);
    // The startup probe gave up long before its 3 s timeout, having read about 1 MiB.
    await connectionClosed;
    expect(sent).toBeLessThan(16 * 1024 * 1024);
    const ready = await (await fetch(`${gateway.url}/readyz`)).json();
    expect(JSON.stringify(ready)).not.toContain("aaaa");
  });

  it("a 200 that is not an event stream and never ends is refused without being read", async () => {
    let sent = 0;
    const block = Buffer.alloc(64 * 1024, "b");
    const upstream = await startHostile((req, _body, res) => {
      // Even its content type echoes the gateway's key: that text is passed on, scrubbed.
      res.writeHead(200, { "content-type": `application/json; note=${req.headers.authorization}` });
      const pump = () => {
        while (!res.destroyed) {
          sent += block.length;
          if (!res.write(block)) return void res.once("drain", pump);
        }
      };
      pump();
    });
    cleanups.push(upstream.close);
    const gateway = await gatewayOver(upstream.url);
    cleanups.push(gateway.close);
    const answer = await post(gateway.url, SURFACES[0], "hello", false);
    expect(answer.status).toBe(502);
    expect(answer.text).toContain("instead of an event stream");
    expect(answer.text).not.toContain(UPSTREAM_KEY);
    expect(sent).toBeLessThan(16 * 1024 * 1024);
  });

  it("an error body that never ends is read only up to its bound", async () => {
    let sent = 0;
    const block = Buffer.alloc(64 * 1024, "c");
    const upstream = await startHostile((_req, _body, res) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.write('{"error":{"message":"');
      const pump = () => {
        while (!res.destroyed) {
          sent += block.length;
          if (!res.write(block)) return void res.once("drain", pump);
        }
      };
      pump();
    });
    cleanups.push(upstream.close);
    const gateway = await gatewayOver(upstream.url);
    cleanups.push(gateway.close);
    const answer = await post(gateway.url, SURFACES[0], "hello", false);
    expect(answer.status).toBe(502);
    expect(answer.text.length).toBeLessThan(4096);
    expect(sent).toBeLessThan(16 * 1024 * 1024);
  });

  it("an endless stream to a non-streaming client ends with answer_too_large at the cap", async () => {
    let closed = 0;
    const upstream = await startHostile((_req, _body, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const frame = sseChunk("lorem ipsum dolor sit amet ".repeat(150));
      res.on("close", () => closed++);
      const pump = () => {
        while (!res.destroyed) if (!res.write(frame)) return void res.once("drain", pump);
      };
      pump();
    });
    cleanups.push(upstream.close);
    const gateway = await gatewayOver(upstream.url, {
      PROXY_MAX_ANSWER_CHARS: String(2 * 1024 * 1024),
      PROXY_REQUEST_TIMEOUT_MS: "15000",
    });
    cleanups.push(gateway.close);
    for (const surface of SURFACES) {
      const started = Date.now();
      const answer = await post(gateway.url, surface, "go on forever", false);
      expect(answer.status, surface.name).toBeGreaterThanOrEqual(500);
      expect(answer.text, surface.name).toMatch(/exceeded 2097152 characters/);
      expect(Date.now() - started).toBeLessThan(20_000);
    }
    // The upstream turns were stopped, not left running.
    await expect.poll(() => closed, { timeout: 5000 }).toBe(SURFACES.length);
    // A streaming client is not capped: it gets the deltas as they come.
    const res = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: "hostile", stream: true, messages: [{ role: "user", content: "go" }] }),
    });
    const reader = res.body!.getReader();
    let read = 0;
    while (read < 3 * 1024 * 1024) read += (await reader.read()).value?.length ?? 0;
    await reader.cancel();
  });
});

describe("an upstream that drops the connection after complete tool calls", { timeout: 60_000 }, () => {
  const call = (city: string) =>
    `<tool_call>${JSON.stringify({ name: "get_weather", arguments: JSON.stringify({ city }) })}</tool_call>`;
  const parameters = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };

  it("Responses streaming ends with response.completed holding both calls, as Chat does", async () => {
    const gateway = await startUpstreamGateway(
      [() => ({ chunks: ["Checking. ", call("Paris"), call("Rome")], delayMs: 30, disconnect: true })],
      (urls) => [{ id: "m", backend: "openai-compatible", baseUrl: urls[0] }],
      { PROXY_STORE: "memory" },
    );
    try {
      const res = await fetch(`${gateway.url}/v1/responses`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "m",
          stream: true,
          input: "weather in Paris and Rome",
          tools: [
            {
              type: "function",
              name: "get_weather",
              strict: true,
              parameters: { ...parameters, additionalProperties: false },
            },
          ],
        }),
      });
      const text = await res.text();
      expect(text).not.toContain("response.failed");
      const completed = text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => JSON.parse(l.slice(6)))
        .find((e) => e.type === "response.completed");
      expect(completed?.response.status).toBe("completed");
      const calls = completed.response.output.filter((o: { type: string }) => o.type === "function_call");
      expect(calls.map((c: { arguments: string }) => JSON.parse(c.arguments))).toEqual([
        { city: "Paris" },
        { city: "Rome" },
      ]);

      const chat = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "m",
          stream: true,
          messages: [{ role: "user", content: "weather in Paris and Rome" }],
          tools: [{ type: "function", function: { name: "get_weather", parameters } }],
        }),
      });
      expect(await chat.text()).toContain('"finish_reason":"tool_calls"');
    } finally {
      await gateway.close();
    }
  });
});
