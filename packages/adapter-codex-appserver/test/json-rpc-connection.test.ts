import { PassThrough, Writable } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import type { Logger } from "../src/logger.js";
import { createJsonRpcConnection, type JsonRpcConnection } from "../src/transport/json-rpc-connection.js";
import {
  ConnectionClosedError,
  JsonRpcError,
  RequestAbortedError,
  RequestTimeoutError,
} from "../src/transport/rpc-errors.js";
import { answerServerRequest } from "../src/transport/server-requests.js";

const recordingLogger = () => {
  const lines: Array<{ level: string; msg: string | undefined }> = [];
  const at = (level: string) => (_obj: object, msg?: string) => lines.push({ level, msg });
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") };
  return { logger, lines };
};

/** Both pipe ends of a connection, with the client's writes parsed back into messages. */
const wire = (options: { highWaterMark?: number } = {}) => {
  const results: Array<[string, string]> = [];
  const fromServer = new PassThrough();
  const written: Array<Record<string, unknown>> = [];
  let release: (() => void) | undefined;
  const toServer = new Writable({
    highWaterMark: options.highWaterMark ?? 16_384,
    write(chunk: Buffer, _enc, callback) {
      for (const line of chunk.toString().split("\n").filter(Boolean)) written.push(JSON.parse(line));
      if (options.highWaterMark !== undefined) release = callback;
      else callback();
    },
  });
  const { logger, lines } = recordingLogger();
  const notifications: Array<[string, unknown]> = [];
  const connection = createJsonRpcConnection({
    input: fromServer,
    output: toServer,
    logger,
    maxLineLength: 200,
    onNotification: (method, params) => notifications.push([method, params]),
    onServerRequest: (method) => answerServerRequest(method),
    onResult: (method, outcome) => results.push([method, outcome]),
  });
  const serverSays = (message: unknown) => fromServer.write(`${JSON.stringify(message)}\n`);
  return {
    connection,
    written,
    notifications,
    results,
    lines,
    fromServer,
    serverSays,
    drain: () => release?.(),
  };
};

const tick = () => new Promise((r) => setTimeout(r, 5));

let open: JsonRpcConnection | undefined;
afterEach(() => open?.close());

describe("JSON-RPC connection", () => {
  it("sends requests without a jsonrpc field and correlates responses by id, in any order", async () => {
    const w = wire();
    open = w.connection;
    const a = w.connection.request("a/one", { x: 1 });
    const b = w.connection.request("b/two", {});
    await tick();
    expect(w.written).toEqual([
      { id: 1, method: "a/one", params: { x: 1 } },
      { id: 2, method: "b/two", params: {} },
    ]);
    w.serverSays({ id: 2, result: "second" });
    w.serverSays({ jsonrpc: "2.0", id: 1, result: "first" });
    await expect(a).resolves.toBe("first");
    await expect(b).resolves.toBe("second");
  });

  it("rejects with JsonRpcError carrying the code", async () => {
    const w = wire();
    open = w.connection;
    const p = w.connection.request("bad", {});
    w.serverSays({ id: 1, error: { code: -32600, message: "Invalid request: missing field `input`" } });
    const e = await p.catch((x: unknown) => x);
    expect(e).toBeInstanceOf(JsonRpcError);
    expect(e).toMatchObject({ code: -32600 });
  });

  it("declines approval requests and answers unknown server requests with -32601", async () => {
    const w = wire();
    open = w.connection;
    w.serverSays({ id: 0, method: "item/commandExecution/requestApproval", params: {} });
    w.serverSays({ id: 1, method: "execCommandApproval", params: {} });
    w.serverSays({ id: 2, method: "item/tool/call", params: {} });
    await tick();
    const byId = [...w.written].sort((a, b) => Number(a.id) - Number(b.id));
    expect(byId).toEqual([
      { id: 0, result: { decision: "decline" } },
      { id: 1, result: { decision: "denied" } },
      { id: 2, error: { code: -32601, message: "the gateway does not handle item/tool/call" } },
    ]);
  });

  it("survives garbage, truncated and oversized lines, stray responses and unknown notifications", async () => {
    const w = wire();
    open = w.connection;
    const p = w.connection.request("x", {});
    w.fromServer.write('not json\n{"method":"item/agentMessage/del\n');
    w.fromServer.write(`${JSON.stringify({ method: "big", params: "y".repeat(500) })}\n[1]\n`);
    w.serverSays({ id: 999, result: {} });
    w.serverSays({ method: "mystery/event", params: { a: 1 } });
    w.serverSays({ id: 1, result: "ok" });
    await expect(p).resolves.toBe("ok");
    expect(w.notifications).toEqual([["mystery/event", { a: 1 }]]);
    expect(w.lines.filter((l) => l.level === "warn")).toHaveLength(5);
  });

  it("rejects pending requests when the server's stdout ends, and refuses new ones", async () => {
    const w = wire();
    const p = w.connection.request("x", {});
    w.fromServer.end('{"id":1,"resu');
    await expect(p).rejects.toBeInstanceOf(ConnectionClosedError);
    await expect(w.connection.request("y", {})).rejects.toBeInstanceOf(ConnectionClosedError);
  });

  it("times out and aborts individual requests without disturbing others", async () => {
    const w = wire();
    open = w.connection;
    const controller = new AbortController();
    const slow = w.connection.request("slow", {}, { timeoutMs: 20 });
    const aborted = w.connection.request("aborted", {}, { signal: controller.signal });
    const fine = w.connection.request("fine", {});
    controller.abort();
    await expect(aborted).rejects.toBeInstanceOf(RequestAbortedError);
    await expect(slow).rejects.toBeInstanceOf(RequestTimeoutError);
    w.serverSays({ id: 3, result: 3 });
    await expect(fine).resolves.toBe(3);
    expect(w.connection.pendingCount()).toBe(0);
  });

  it("reports every request's outcome once: ok, the error code, timeout, aborted, closed", async () => {
    const w = wire();
    const controller = new AbortController();
    const ok = w.connection.request("thread/start", {});
    const bad = w.connection.request("turn/start", {}).catch(() => undefined);
    const slow = w.connection.request("turn/interrupt", {}, { timeoutMs: 20 }).catch(() => undefined);
    const aborted = w.connection.request("thread/unsubscribe", {}, { signal: controller.signal });
    controller.abort();
    await aborted.catch(() => undefined);
    w.serverSays({ id: 1, result: {} });
    w.serverSays({ id: 2, error: { code: -32600, message: "Invalid request" } });
    await Promise.all([ok, bad, slow]);
    w.connection.close();
    await w.connection.request("initialize", {}).catch(() => undefined);
    expect(w.results.sort()).toEqual(
      [
        ["thread/start", "ok"],
        ["turn/start", "-32600"],
        ["turn/interrupt", "timeout"],
        ["thread/unsubscribe", "aborted"],
        ["initialize", "closed"],
      ].sort(),
    );
  });

  it("holds further writes until the pipe drains", async () => {
    const w = wire({ highWaterMark: 1 });
    open = w.connection;
    void w.connection.notify("first");
    void w.connection.notify("second");
    await tick();
    expect(w.written.map((m) => m.method)).toEqual(["first"]);
    w.drain();
    await tick();
    expect(w.written.map((m) => m.method)).toEqual(["first", "second"]);
    w.drain();
  });
  it("writes a large line in a later turn of the event loop than it serialises it", async () => {
    const w = wire();
    open = w.connection;
    const order: string[] = [];
    // A timer due now runs between serialising a 2 MB turn and writing it, not after both.
    setTimeout(() => order.push(`timer, ${w.written.length} written`), 0);
    void w.connection.notify("turn/start", { text: "x".repeat(2 * 1024 * 1024) });
    void w.connection.notify("small", {});
    await tick();
    expect(order).toEqual(["timer, 0 written"]);
    expect(w.written.map((m) => m.method)).toEqual(["turn/start", "small"]);
  });
});
