import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

/** A free loopback port (for the gateway's inspector). */
const freePort = async (): Promise<number> => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
};

/**
 * The gateway's retained memory through its inspector: a full garbage collection, then the JS heap
 * in use plus external memory (the buffers of streams and sockets). Unlike RSS it does not count
 * garbage that V8 has not collected yet, so it is steady on a loaded machine.
 */
const openInspector = async (port: number) => {
  const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  const ws = new WebSocket(target?.webSocketDebuggerUrl ?? "");
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  const pending = new Map<number, (result: unknown) => void>();
  ws.onmessage = (message) => {
    const { id, result } = JSON.parse(String(message.data)) as { id?: number; result?: unknown };
    if (id !== undefined) pending.get(id)?.(result);
  };
  let next = 0;
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve) => {
      const id = ++next;
      pending.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  return {
    async retainedBytes(): Promise<number> {
      await call("HeapProfiler.collectGarbage");
      const { result } = (await call("Runtime.evaluate", {
        expression: "(({ heapUsed, external }) => heapUsed + external)(process.memoryUsage())",
        returnByValue: true,
      })) as { result: { value: number } };
      return result.value;
    },
    close: () => ws.close(),
  };
};

const rssBytes = (pid: number): number => {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(line?.[1] ?? 0) * 1024;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A raw-socket client that reads only when told to: `take(n)` pulls at most n buffered bytes. */
const openSlowClient = (url: string, body: unknown) => {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect({ host: hostname, port: Number(port) });
  const payload = JSON.stringify(body);
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\nconnection: close\r\n\r\n${payload}`,
  );
  socket.pause();
  const received: Buffer[] = [];
  let ended = false;
  socket.on("end", () => {
    ended = true;
  });
  return {
    take(n: number): number {
      let got = 0;
      for (let b = socket.read() as Buffer | null; b !== null; b = socket.read() as Buffer | null) {
        received.push(b);
        got += b.length;
        if (got >= n) break;
      }
      return got;
    },
    ended: () => ended && socket.readableLength === 0,
    body: () => dechunk(Buffer.concat(received)),
    destroy: () => socket.destroy(),
  };
};

/** The body of a raw HTTP/1.1 answer sent with chunked transfer encoding. */
const dechunk = (raw: Buffer): string => {
  const parts: Buffer[] = [];
  let at = raw.indexOf("\r\n\r\n") + 4;
  for (;;) {
    const eol = raw.indexOf("\r\n", at);
    const size = Number.parseInt(raw.subarray(at, eol).toString("latin1"), 16);
    if (!(size > 0)) break;
    parts.push(raw.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts).toString("utf8");
};

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
