import { createServer as createHttpServer } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { serve } from "@hono/node-server";
import { type BackendRequest, GatewayError } from "@proxy/core";
import {
  type BackendBatch,
  createMemoryConversationOwners,
  type TextBackend,
  wrapBackend,
} from "@proxy/core/gateway";
import { createScriptedBackend } from "@proxy/core/testing";
import { Hono } from "hono";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { internalTurnRoute } from "../../src/replicas/internal-turn.js";
import { createOwnership } from "../../src/replicas/ownership.js";
import { replicaForwarding, settledLocally } from "../../src/replicas/replica-forwarding.js";
import { batchLine, INTERNAL_TURN_PATH } from "../../src/replicas/wire.js";

const SECRET = "a-replica-secret-0123456789";
const logger = pino({ level: "silent" });

/** A conversation key as a backend would derive it: the caller first, then the history's texts. */
const keysOf = async (request: BackendRequest) =>
  request.history.length === 0 ? [] : request.history.map((_, i) => `${request.partition}:${i + 1}`);

const request = (partition: string, history = 2): BackendRequest => ({
  model: "m",
  instructions: "",
  partition,
  history: Array.from({ length: history }, (_, i) => ({
    role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
    content: [{ type: "text" as const, text: `m${i}` }],
  })),
  input: [{ type: "text", text: "next" }],
});

const collect = async (backend: TextBackend, r: BackendRequest) => {
  const events = [];
  for await (const event of backend.stream(r, { signal: new AbortController().signal })) events.push(event);
  return events;
};

const servers: Array<{ close(): void }> = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.close();
});

/** A replica's internal route over `backend`, holding `held`, on a loopback port. */
const owner = async (backend: TextBackend, held: ReadonlyArray<string>) => {
  const app = new Hono();
  const holds = new Set(held);
  app.post(
    INTERNAL_TURN_PATH,
    internalTurnRoute({ secret: SECRET, backend, keysOf, holds: (k) => holds.has(k), logger }),
  );
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" });
  servers.push(server);
  await new Promise((resolve) => server.once("listening", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
};

/** The forwarding replica over its own local backend, with `owners` saying who holds what. */
const forwarder = (local: TextBackend, owners = createMemoryConversationOwners(), timeoutMs = 1000) =>
  wrapBackend(
    local,
    replicaForwarding({
      self: "http://self",
      secret: SECRET,
      timeoutMs,
      owners,
      ownership: createOwnership(owners, "http://self", logger),
      keysOf,
      logger,
    }),
  );

describe("replica forwarding", () => {
  it("a turn of a conversation another replica holds runs there, its events (errors too) streamed back", async () => {
    const remote = createScriptedBackend([
      {
        chunks: ["from ", "owner"],
        error: new GatewayError("rate_limited", "slow down", { retryAfterSeconds: 3 }),
        errorAfterChunks: 2,
      },
    ]);
    const local = createScriptedBackend([{ chunks: "from local" }]);
    const owners = createMemoryConversationOwners();
    const url = await owner(remote, ["p1:2"]);
    await owners.record(["p1:2"], url, 1);
    const events = await collect(forwarder(local, owners), request("p1"));
    expect(
      events
        .filter((e) => e.type === "text-delta")
        .map((e) => e.delta)
        .join(""),
    ).toBe("from owner");
    const error = events.find((e) => e.type === "error");
    expect(error?.type === "error" && error.error).toMatchObject({
      kind: "rate_limited",
      retryAfterSeconds: 3,
    });
    expect(error?.type === "error" && error.error).toBeInstanceOf(GatewayError);
    expect(remote.requests[0]?.partition).toBe("p1");
    expect(local.requests).toHaveLength(0);
  });

  it("runs here: a new conversation, one nobody holds, an owner that is gone, refuses or is silent", async () => {
    const local = createScriptedBackend(() => ({ chunks: "from local" }));
    const owners = createMemoryConversationOwners();
    const text = async (r: BackendRequest, backend = forwarder(local, owners, 300)) =>
      (await collect(backend, r)).flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("");
    expect(await text(request("p", 0))).toBe("from local");
    expect(await text(request("nobody"))).toBe("from local");
    await owners.record(["gone:2"], "http://127.0.0.1:9", 1);
    expect(await text(request("gone"))).toBe("from local");
    // The owner no longer holds it (409), or does not answer before the timeout.
    await owners.record(["released:2"], await owner(createScriptedBackend([{ chunks: "x" }]), []), 1);
    expect(await text(request("released"))).toBe("from local");
    // A replica that accepts the connection and then says nothing (hung, not dead).
    const hung = createServer(() => {});
    servers.push(hung);
    await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", resolve));
    await owners.record(["silent:2"], `http://127.0.0.1:${(hung.address() as AddressInfo).port}`, 1);
    const started = Date.now();
    expect(await text(request("silent"))).toBe("from local");
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(local.requests).toHaveLength(5);
  });

  it("an owner that dies after its first event ends the turn with a retryable error, never a second answer", async () => {
    const dying = createHttpServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      res.write(batchLine([{ type: "stream-start" }, { type: "text-delta", delta: "half an " }]));
      setTimeout(() => res.destroy(), 50);
    });
    servers.push(dying);
    await new Promise<void>((resolve) => dying.listen(0, "127.0.0.1", resolve));
    const owners = createMemoryConversationOwners();
    await owners.record(["dies:2"], `http://127.0.0.1:${(dying.address() as AddressInfo).port}`, 1);
    const local = createScriptedBackend([{ chunks: "from local" }]);
    const events = await collect(forwarder(local, owners), request("dies"));
    expect(events.map((e) => e.type)).toEqual(["stream-start", "text-delta", "error"]);
    const error = events.at(-1);
    expect(error?.type === "error" && error.error).toMatchObject({
      kind: "backend_unavailable",
      retryable: true,
    });
    expect(local.requests).toHaveLength(0);
  });

  it("a client that reads slowly is no silent owner: its turn pauses across the hop and completes", async () => {
    const owned = createScriptedBackend([{ chunks: ["one ", "two ", "three"], delayMs: 10 }]);
    const owners = createMemoryConversationOwners();
    await owners.record(["slowreader:2"], await owner(owned, ["slowreader:2"]), 1);
    const local = createScriptedBackend([{ chunks: "from local" }]);
    const stream = forwarder(local, owners, 300).stream(request("slowreader"), {
      signal: new AbortController().signal,
    });
    const types: string[] = [];
    let text = "";
    for await (const batch of stream.batches()) {
      for (const e of batch) {
        types.push(e.type);
        if (e.type === "text-delta") text += e.delta;
      }
      await new Promise((r) => setTimeout(r, 700)); // more than the timeout between reads
    }
    expect(text).toBe("one two three");
    expect(types).not.toContain("error");
    expect(local.requests).toHaveLength(0);
  });

  it("heartbeats keep a slow owner's turn (a model that takes longer than the timeout to start)", async () => {
    const slow = createScriptedBackend([{ chunks: ["slow ", "but ", "there"], delayMs: 400 }]);
    const owners = createMemoryConversationOwners();
    await owners.record(["slow:2"], await owner(slow, ["slow:2"]), 1);
    const local = createScriptedBackend([{ chunks: "from local" }]);
    const events = await collect(forwarder(local, owners, 300), request("slow"));
    expect(events.flatMap((e) => (e.type === "text-delta" ? [e.delta] : [])).join("")).toBe("slow but there");
    expect(local.requests).toHaveLength(0);
  });
});

describe("the internal route", () => {
  const post = (url: string, body: unknown, secret = SECRET) =>
    fetch(`${url}${INTERNAL_TURN_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-proxy-replica-secret": secret },
      body: JSON.stringify(body),
    });

  it("refuses another caller's turn naming a key it holds, and a wrong secret, before running anything", async () => {
    const backend = createScriptedBackend([{ chunks: "never" }]);
    const url = await owner(backend, ["alice:2"]);
    const mallory = await post(url, { key: "alice:2", heartbeatMs: 100, request: request("mallory") });
    expect(mallory.status).toBe(400);
    expect(await mallory.text()).toMatch(/does not derive/);
    expect(
      (await post(url, { key: "alice:2", heartbeatMs: 100, request: request("alice") }, "wrong")).status,
    ).toBe(401);
    expect(backend.requests).toHaveLength(0);
    const alice = await post(url, { key: "alice:2", heartbeatMs: 100, request: request("alice") });
    expect(alice.status).toBe(200);
    expect(await alice.text()).toMatch(/"t":"end"/);
  });
});

describe("a local turn's end", () => {
  it("waits for its owner record to be written before the terminal batch", async () => {
    const order: string[] = [];
    const owners = createMemoryConversationOwners();
    const slowOwners = {
      ...owners,
      record: async (keys: ReadonlyArray<string>, who: string, now: number) => {
        await new Promise((r) => setTimeout(r, 50));
        order.push(`recorded ${keys.join(",")}`);
        return owners.record(keys, who, now);
      },
    };
    const ownership = createOwnership(slowOwners, "http://self", logger);
    async function* turn(): AsyncGenerator<BackendBatch> {
      try {
        yield [{ type: "text-delta", delta: "hi" }];
        yield [{ type: "finish", finish: { reason: "stop", raw: undefined } }];
      } finally {
        // codex parks the thread as its turn ends: its conversation and where its turns began
        ownership.observe("k", true);
        ownership.observe("k-turn-1", true);
        ownership.observe("k-turn-2", true);
      }
    }
    for await (const batch of settledLocally(turn(), ownership)) for (const e of batch) order.push(e.type);
    // One write for all three, before the client hears the turn is over.
    expect(order).toEqual(["text-delta", "recorded k,k-turn-1,k-turn-2", "finish"]);
    expect(await owners.lookup(["k-turn-2"])).toEqual({ key: "k-turn-2", owner: "http://self" });
  });
});
