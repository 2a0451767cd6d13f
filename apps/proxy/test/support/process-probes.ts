import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, type Socket } from "node:net";

/** A free loopback port (for the gateway's inspector). */
export const freePort = async (): Promise<number> => {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
};

/**
 * Makes the gateway load its tokenizer now (a count does; otherwise it loads a moment after start),
 * so a memory baseline taken next already holds its tables.
 */
export const warmTokenizer = async (url: string): Promise<void> => {
  const res = await fetch(`${url}/v1/messages/count_tokens`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "warm up" }] }),
  });
  if (res.status !== 200) throw new Error(`count_tokens answered ${res.status}: ${await res.text()}`);
};

/**
 * The gateway's retained memory through its inspector: a full garbage collection, then the JS heap
 * in use plus external memory (the buffers of streams and sockets). Unlike RSS it does not count
 * garbage that V8 has not collected yet, so it is steady on a loaded machine. The inspector runs
 * its commands between any two JS statements, so a sample also counts what a running task holds.
 */
export const openInspector = async (port: number) => {
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

export const rssBytes = (pid: number): number => {
  const line = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(line?.[1] ?? 0) * 1024;
};

/** Bytes the process has read so far, from every file it reads (`rchar`: pipes and sockets too). */
export const readBytes = (pid: number): number => {
  const line = /rchar:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/io`, "utf8"));
  return Number(line?.[1] ?? 0);
};

/** A raw-socket client that reads only when told to: `take(n)` pulls at most n buffered bytes. */
export const openSlowClient = (url: string, body: unknown, path = "/v1/chat/completions") => {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect({ host: hostname, port: Number(port) });
  const payload = JSON.stringify(body);
  socket.write(
    `POST ${path} HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\nconnection: close\r\n\r\n${payload}`,
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
export const dechunk = (raw: Buffer): string => {
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
