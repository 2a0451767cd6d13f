import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  freePort,
  openInspector,
  openSlowClient,
  rssBytes,
  warmTokenizer,
} from "../support/process-probes.js";
import { type SpawnedGateway, spawnGateway } from "../support/spawn-gateway.js";

// 20 MB of answer, in numbered 4 KiB pieces so any loss, duplicate or reordering shows.
const PIECE_BYTES = 4096;
const PIECES = 5_000;
const piece = (i: number) => `${String(i).padStart(8, "0")}${"x".repeat(PIECE_BYTES - 8)}`;
const TOTAL = PIECE_BYTES * PIECES;

/**
 * An OpenAI-compatible model server that streams the answer as fast as the gateway takes it: it
 * waits for `drain` whenever its socket is full, so `written` is how far the gateway let it get.
 */
const startStreamingUpstream = async () => {
  let written = 0;
  const server: Server = createServer((req, res) => {
    if (req.method !== "POST") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "local", object: "model" }] }));
      return;
    }
    const parts: Buffer[] = [];
    req.on("data", (b: Buffer) => parts.push(b));
    req.on("end", async () => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const warmUp = Buffer.concat(parts).toString().includes("warm up");
      const chunk = (content: string | undefined, finish: string | null) =>
        `data: ${JSON.stringify({
          id: "c1",
          object: "chat.completion.chunk",
          choices: [{ index: 0, delta: content === undefined ? {} : { content }, finish_reason: finish }],
        })}\n\n`;
      for (let i = 0; i < (warmUp ? 100 : PIECES); i++) {
        const text = piece(i);
        if (!res.write(chunk(text, null))) await new Promise((resolve) => res.once("drain", resolve));
        if (res.destroyed) return;
        if (!warmUp) written += text.length;
      }
      res.end(`${chunk(undefined, "stop")}data: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    written: () => written,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The content deltas of a Chat Completions SSE answer, in order. */
const contentOf = (body: string): string => {
  let content = "";
  for (const match of body.matchAll(/"content":"([^"]*)"/g)) content += match[1];
  return content;
};

describe("a slow-reading client while the backend streams 20 MB (real gateway process)", {
  timeout: 120_000,
}, () => {
  let upstream: Awaited<ReturnType<typeof startStreamingUpstream>>;
  let gateway: SpawnedGateway;
  let inspector: Awaited<ReturnType<typeof openInspector>>;
  beforeAll(async () => {
    upstream = await startStreamingUpstream();
    const inspectorPort = await freePort();
    gateway = await spawnGateway({
      PROXY_MODELS: JSON.stringify([{ id: "local", backend: "openai-compatible", baseUrl: upstream.url }]),
      PROXY_WRITE_TIMEOUT_MS: "60000",
      PROXY_REQUEST_TIMEOUT_MS: "0",
      PROXY_IDLE_TIMEOUT_MS: "0",
      NODE_OPTIONS: `--inspect=127.0.0.1:${inspectorPort}`,
    });
    inspector = await openInspector(inspectorPort);
  });
  afterAll(async () => {
    inspector?.close();
    gateway?.child.kill("SIGKILL");
    await upstream?.close();
  });

  it("holds the gateway's memory bounded, pauses the backend, and delivers every byte in order", async () => {
    const pid = gateway.child.pid as number;
    // One short turn first: the gateway loads and compiles its request path before the baseline.
    const warm = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "local",
        stream: true,
        messages: [{ role: "user", content: "warm up" }],
      }),
    });
    expect(contentOf(await warm.text())).toHaveLength(100 * PIECE_BYTES);
    // The tokenizer's tables (tens of MB, loaded once a moment after start) are in the baseline.
    await warmTokenizer(gateway.url);
    const baseline = await inspector.retainedBytes();
    const baselineRss = rssBytes(pid);
    const client = openSlowClient(gateway.url, {
      model: "local",
      stream: true,
      messages: [{ role: "user", content: "write a lot" }],
    });
    let peakRss = baselineRss;
    let peakAhead = 0;
    let read = 0;
    // First the client reads nothing at all for a while: only socket buffers may fill, then the
    // backend must stand still.
    await sleep(1_000);
    const stoppedAt = upstream.written();
    let peakRetained = await inspector.retainedBytes();
    await sleep(500);
    const whileStopped = upstream.written();
    // Then it reads slowly (about 8 MB/s); the backend may only run ahead by what the buffers hold.
    for (let tick = 1; !client.ended(); tick++) {
      read += client.take(128 * 1024);
      await sleep(15);
      peakRss = Math.max(peakRss, rssBytes(pid));
      peakAhead = Math.max(peakAhead, upstream.written() - read);
      if (tick % 50 === 0) peakRetained = Math.max(peakRetained, await inspector.retainedBytes());
    }
    client.destroy();

    const body = client.body();
    const content = contentOf(body);
    expect(content.length).toBe(TOTAL);
    expect(content).toBe(Array.from({ length: PIECES }, (_, i) => piece(i)).join(""));
    expect(body.endsWith("data: [DONE]\n\n")).toBe(true);
    // The backend was paused by backpressure: it stood still while the client read nothing, and
    // never got further ahead of the client than the sockets' kernel buffers (a few MiB each way).
    expect(whileStopped).toBe(stoppedAt);
    expect(whileStopped).toBeLessThan(TOTAL / 2);
    expect(peakAhead).toBeLessThan(TOTAL / 2);
    // And the gateway did not hold the answer: what it retains grew by well under the 20 MB relayed.
    const mib = (n: number) => (n / 2 ** 20).toFixed(1);
    console.info(
      `slow reader: backend ahead ≤ ${mib(peakAhead)} MiB (stopped client: ${mib(whileStopped)} MiB), gateway retained +${mib(peakRetained - baseline)} MiB, RSS +${mib(peakRss - baselineRss)} MiB`,
    );
    expect(peakRetained - baseline).toBeLessThan(TOTAL / 4);
  });
});
