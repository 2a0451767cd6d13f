import { type PostgresServer, startPostgresServer } from "@proxy/adapter-store-sql/testing";
import { createScriptedBackend } from "@proxy/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayOver, type ReliabilityGateway } from "../reliability/support.js";

const NUL = "\u0000";

/**
 * A NUL character in any id: PostgreSQL cannot hold one in text, so such an id
 * names nothing. Every case is refused before a backend turn runs, with the same 4xx on both stores.
 */
describe("ids with a NUL character, on SQLite and PostgreSQL (real gateway)", { timeout: 120_000 }, () => {
  let postgres: PostgresServer;
  const gateways: Record<string, { gateway: ReliabilityGateway; turns: () => number }> = {};
  beforeAll(async () => {
    postgres = await startPostgresServer();
    const stores = { sqlite: "memory", postgres: await postgres.createDatabase("nul_ids") };
    for (const [name, store] of Object.entries(stores)) {
      const backend = createScriptedBackend(() => ({ chunks: ["answer"] }));
      const gateway = await gatewayOver(backend, {
        PROXY_STORE: store,
        PROXY_CONVERSATIONS_AUTOCREATE: "true",
      });
      gateways[name] = { gateway, turns: () => backend.requests.length };
    }
  }, 120_000);
  afterAll(async () => {
    for (const { gateway } of Object.values(gateways)) await gateway.close();
    await postgres?.stop();
  });

  const send = (url: string, method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  const cases: ReadonlyArray<{
    readonly name: string;
    readonly method: string;
    readonly path: string;
    readonly body?: unknown;
    readonly status: number;
  }> = [
    {
      name: "input item id",
      method: "POST",
      path: "/v1/responses",
      body: { model: "m", input: [{ type: "message", role: "user", content: "hi", id: `msg_${NUL}x` }] },
      status: 400,
    },
    {
      name: "previous_response_id",
      method: "POST",
      path: "/v1/responses",
      body: { model: "m", input: "hi", previous_response_id: `resp_${NUL}` },
      status: 400,
    },
    {
      name: "conversation",
      method: "POST",
      path: "/v1/responses",
      body: { model: "m", input: "hi", conversation: `conv_${NUL}` },
      status: 404,
    },
    {
      name: "background with an input item id",
      method: "POST",
      path: "/v1/responses",
      body: {
        model: "m",
        background: true,
        input: [{ type: "message", role: "user", content: "hi", id: `msg_${NUL}` }],
      },
      status: 400,
    },
    {
      name: "gemini conversation",
      method: "POST",
      path: "/v1/gemini",
      body: { model: "m", input: "hi", conversation: `c${NUL}` },
      status: 404,
    },
    { name: "GET response", method: "GET", path: "/v1/responses/resp_%00", status: 404 },
    { name: "DELETE response", method: "DELETE", path: "/v1/responses/resp_%00", status: 404 },
    { name: "input_items", method: "GET", path: "/v1/responses/resp_%00/input_items", status: 404 },
    { name: "cancel", method: "POST", path: "/v1/responses/resp_%00/cancel", status: 404 },
    { name: "GET conversation", method: "GET", path: "/v1/conversations/conv_%00", status: 404 },
    { name: "conversation items", method: "GET", path: "/v1/conversations/conv_%00/items", status: 404 },
    {
      name: "conversation item",
      method: "GET",
      path: "/v1/conversations/conv_x/items/msg_%00",
      status: 404,
    },
    {
      name: "add conversation items",
      method: "POST",
      path: "/v1/conversations/conv_%00/items",
      body: { items: [{ type: "message", role: "user", content: "x" }] },
      status: 404,
    },
  ];

  for (const store of ["sqlite", "postgres"])
    for (const c of cases)
      it(`${store}: ${c.name} → ${c.status}, no backend turn`, async () => {
        const { gateway, turns } = gateways[store]!;
        const before = turns();
        const res = await send(gateway.url, c.method, c.path, c.body);
        const text = await res.text();
        expect(res.status, text).toBe(c.status);
        expect(text).not.toMatch(/0x00|invalid byte sequence|UTF8/i);
        expect(turns()).toBe(before);
      });

  it("an item_reference with a NUL resolves to nothing, the same way on both stores", async () => {
    const answers: number[] = [];
    for (const store of ["sqlite", "postgres"]) {
      const res = await send(gateways[store]!.gateway.url, "POST", "/v1/responses", {
        model: "m",
        input: [
          { type: "item_reference", id: `msg_${NUL}` },
          { type: "message", role: "user", content: "hi" },
        ],
      });
      answers.push(res.status);
    }
    expect(answers[0]).toBeLessThan(500);
    expect(answers[1]).toBe(answers[0]);
  });
});
