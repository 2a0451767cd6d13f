import { request } from "node:http";
import { createScriptedBackend } from "@proxy/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { serveApp } from "./support/serve-app.js";

/** POSTs `body` in pieces with `Transfer-Encoding: chunked` (no Content-Length), as a streaming client does. */
const postChunked = (url: string, path: string, pieces: ReadonlyArray<string>) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        body += d;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    for (const piece of pieces) req.write(piece);
    req.end();
  });

describe("request body limit", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  const start = async () => {
    const served = await serveApp(
      createScriptedBackend([{ chunks: ["Hello!"] }, { chunks: ["Hello!"] }], { models: [{ id: "m" }] }),
      { bodyLimitBytes: 1024 },
    );
    closers.push(served.close);
    return served;
  };
  const body = (content: string) => JSON.stringify({ model: "m", messages: [{ role: "user", content }] });

  it("counts a chunked body as it arrives: over the limit is a 413, within it is answered", async () => {
    const { url } = await start();
    const long = body("x".repeat(5000));
    const over = await postChunked(url, "/v1/chat/completions", [long.slice(0, 900), long.slice(900)]);
    expect(over.status).toBe(413);
    expect(JSON.parse(over.body)).toMatchObject({ error: { code: "request_too_large" } });
    const short = body("hi");
    const within = await postChunked(url, "/v1/chat/completions", [short.slice(0, 10), short.slice(10)]);
    expect(within.status).toBe(200);
    expect(JSON.parse(within.body)).toMatchObject({ choices: [{ message: { content: "Hello!" } }] });
  });

  it("compares a declared Content-Length without reading the body", async () => {
    const { url } = await start();
    const over = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: body("x".repeat(5000)),
    });
    expect(over.status).toBe(413);
    const within = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: body("hi"),
    });
    expect(within.status).toBe(200);
  });
});
