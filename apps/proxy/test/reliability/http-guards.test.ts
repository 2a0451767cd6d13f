import { createServer, request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { createScriptedBackend } from "@proxy/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { guardServer } from "../../src/http/server-guard.js";
import { chat, gatewayOver, type ReliabilityGateway } from "./support.js";

const backend = () => createScriptedBackend(() => ({ chunks: ["ok"] }));

/** One raw HTTP/1.1 exchange, so requests no fetch would send (foreign Host, slow headers) can be made. */
const raw = (url: string, text: string, options: { readonly wait?: number } = {}) =>
  new Promise<string>((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    let out = "";
    socket.on("data", (b) => {
      out += b.toString();
    });
    socket.on("end", () => resolve(out));
    socket.on("close", () => resolve(out));
    socket.on("error", reject);
    socket.write(text);
    if (options.wait === undefined) socket.end();
  });

const statusOf = (response: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1]);
const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4));

describe("HTTP guards at the socket (real gateway)", { timeout: 30_000 }, () => {
  const open: ReliabilityGateway[] = [];
  afterEach(async () => {
    for (const g of open.splice(0)) await g.close();
  });
  const start = async (env: Record<string, string> = {}) => {
    const g = await gatewayOver(backend(), env);
    open.push(g);
    return g;
  };

  it("refuses a browser's simple cross-site POST (text/plain) with 415 before any turn runs", async () => {
    const scripted = backend();
    const g = await gatewayOver(scripted);
    open.push(g);
    const res = await fetch(`${g.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "text/plain", origin: "https://evil.example" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "run" }] }),
    });
    expect(res.status).toBe(403);
    const plain = await fetch(`${g.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "run" }] }),
    });
    expect(plain.status).toBe(415);
    expect(await plain.json()).toEqual({
      error: {
        message: "Content-Type must be application/json, not 'text/plain'.",
        type: "invalid_request_error",
        param: "content-type",
        code: "unsupported_media_type",
      },
    });
    expect(scripted.requests).toHaveLength(0);
    expect((await chat(g.url, "hi")).status).toBe(200);
    expect(scripted.requests).toHaveLength(1);
  });

  it("refuses an Origin not in PROXY_CORS_ORIGINS and serves a listed one", async () => {
    const g = await start({ PROXY_CORS_ORIGINS: "app://obsidian.md" });
    const evil = await chat(g.url, "hi", { headers: { origin: "https://evil.example" } });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ error: { code: "origin_not_allowed", param: "origin" } });
    const listed = await chat(g.url, "hi", { headers: { origin: "app://obsidian.md" } });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("access-control-allow-origin")).toBe("app://obsidian.md");
  });

  it("bound to loopback, answers only loopback Host names (DNS rebinding); PROXY_ALLOWED_HOSTS adds names", async () => {
    const g = await start();
    const ask = (host: string) =>
      raw(g.url, `GET /v1/models HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    const rebinding = await ask("evil.example:8787");
    expect(statusOf(rebinding)).toBe(403);
    expect(bodyOf(rebinding)).toMatchObject({ error: { code: "host_not_allowed", param: "host" } });
    for (const host of ["localhost:8787", "127.0.0.1", "[::1]:8787"])
      expect(statusOf(await ask(host))).toBe(200);
    const proxied = await start({ PROXY_ALLOWED_HOSTS: "gateway.internal" });
    const viaProxy = await raw(
      proxied.url,
      "GET /v1/models HTTP/1.1\r\nHost: gateway.internal\r\nConnection: close\r\n\r\n",
    );
    expect(statusOf(viaProxy)).toBe(200);
  });

  it("an oversized request line gets 431 with an OpenAI-shaped body, not Node's bare one", async () => {
    const g = await start();
    const res = await raw(
      g.url,
      `GET /v1/models?q=${"a".repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`,
    );
    expect(statusOf(res)).toBe(431);
    expect(bodyOf(res)).toMatchObject({
      error: { type: "invalid_request_error", code: "request_header_fields_too_large" },
    });
    const garbage = await raw(g.url, "NOT HTTP AT ALL\r\n\r\n");
    expect(statusOf(garbage)).toBe(400);
    expect(bodyOf(garbage)).toMatchObject({ error: { code: "bad_request" } });
  });

  it("server deadlines: headers within 30 s, the whole request within 60 s", async () => {
    const g = await start();
    const server = g.gateway.server as unknown as { headersTimeout: number; requestTimeout: number };
    expect(server.headersTimeout).toBeLessThanOrEqual(30_000);
    expect(server.requestTimeout).toBeLessThanOrEqual(60_000);
    expect(server.requestTimeout).toBeGreaterThan(0);
  });

  it("a client that sends its headers too slowly gets 408 with an OpenAI-shaped body (deadlines shortened)", async () => {
    const server = createServer(
      { headersTimeout: 300, requestTimeout: 600, connectionsCheckingInterval: 50 },
      (_req, res) => res.end("{}"),
    );
    guardServer(server, { maxConnections: 10 });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const res = await raw(url, "GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: ", { wait: 1 });
      expect(statusOf(res)).toBe(408);
      expect(bodyOf(res)).toMatchObject({
        error: { type: "invalid_request_error", code: "request_timeout" },
      });
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it("PROXY_MAX_CONNECTIONS: a connection beyond the cap is closed at once", async () => {
    const g = await start({ PROXY_MAX_CONNECTIONS: "2" });
    const { hostname, port } = new URL(g.url);
    const held = [connect(Number(port), hostname), connect(Number(port), hostname)];
    await Promise.all(held.map((s) => new Promise((r) => s.once("connect", r))));
    await new Promise((r) => setTimeout(r, 50));
    const third = await new Promise<string>((resolve) => {
      const req = httpRequest(`${g.url}/healthz`, (res) => resolve(String(res.statusCode)));
      req.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
      req.end();
    });
    expect(third).toMatch(/ECONNRESET|EPIPE|socket hang up/);
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 50));
    expect((await fetch(`${g.url}/healthz`)).status).toBe(200);
  });

  it("/metrics, /readyz and /openapi.json are open by default and need a key with PROXY_METRICS_AUTH=true", async () => {
    const keys = { PROXY_API_KEYS: "sk-reliability-key" };
    const open = await start(keys);
    for (const path of ["/metrics", "/readyz", "/openapi.json", "/healthz"])
      expect((await fetch(`${open.url}${path}`)).status).toBe(200);
    const closed = await start({ ...keys, PROXY_METRICS_AUTH: "true" });
    for (const path of ["/metrics", "/readyz", "/openapi.json"]) {
      const anonymous = await fetch(`${closed.url}${path}`);
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toMatchObject({ error: { code: "invalid_api_key" } });
      const keyed = await fetch(`${closed.url}${path}`, {
        headers: { authorization: "Bearer sk-reliability-key" },
      });
      expect(keyed.status).toBe(200);
    }
    expect((await fetch(`${closed.url}/healthz`)).status).toBe(200);
  });
});
