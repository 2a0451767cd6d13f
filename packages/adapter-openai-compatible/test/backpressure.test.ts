import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { o200kEncoding } from "@proxy/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOpenAICompatibleBackend, type OpenAICompatibleBackend } from "../src/index.js";

// 8 MB of answer in numbered 4 KiB pieces, written as fast as the gateway's socket takes them.
const PIECES = 2000;
const piece = (i: number) => `${String(i).padStart(8, "0")}${"x".repeat(4088)}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: Server;
let written = 0;
let backend: OpenAICompatibleBackend;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(200, { "content-type": "application/json" }).end('{"data":[]}');
      return;
    }
    req.resume();
    req.on("end", async () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const event = (delta: object, finish: string | null) =>
        `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      for (let i = 0; i < PIECES; i++) {
        if (!res.write(event({ content: piece(i) }, null)))
          await new Promise((resolve) => res.once("drain", resolve));
        if (res.destroyed) return;
        written++;
      }
      res.end(`${event({}, "stop")}data: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  backend = createOpenAICompatibleBackend({
    tokens: o200kEncoding,
    baseUrl: `http://127.0.0.1:${port}/v1`,
    route: "big",
  });
});
afterAll(async () => {
  await backend.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("a reader slower than the upstream", () => {
  it("pauses the upstream while it does not pull, then gets every byte in order", async () => {
    const request = {
      model: "m",
      instructions: "",
      history: [],
      input: [{ type: "text" as const, text: "go" }],
    };
    const batches = backend.stream(request, { signal: new AbortController().signal }).batches();
    let text = "";
    let finish: unknown;
    let stalled: [number, number] | undefined;
    for await (const batch of batches) {
      for (const e of batch) {
        if (e.type === "text-delta") text += e.delta;
        if (e.type === "finish") finish = e.finish;
      }
      if (stalled === undefined && text.length > 0) {
        // Stop pulling: once the socket buffers are full the upstream must stand still. How long
        // filling them takes depends on the machine's load, so wait until the count settles
        // (bounded: an upstream that never pauses runs out of pieces and fails the checks below).
        let settled = written;
        for (let quiet = 0; quiet < 4; ) {
          await sleep(50);
          quiet = written === settled ? quiet + 1 : 0;
          settled = written;
        }
        const before = written;
        await sleep(300);
        stalled = [before, written];
      } else await sleep(1);
    }
    expect(stalled?.[1]).toBe(stalled?.[0]);
    expect(stalled?.[0]).toBeLessThan(PIECES);
    expect(text).toBe(Array.from({ length: PIECES }, (_, i) => piece(i)).join(""));
    expect(finish).toMatchObject({ reason: "stop" });
  });
});
