import { type PostgresServer, startPostgresServer } from "@proxy/adapter-store-sql/testing";
import { createScriptedBackend } from "@proxy/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gatewayOver, type ReliabilityGateway, waitUntil } from "../reliability/support.js";

const MAX_RESPONSE = 1024 * 1024;
const MAX_CONVERSATION = 200_000;

/**
 * PROXY_STORE_MAX_RESPONSE_BYTES holds for every stored object, and conversations have their own
 * bound, on SQLite and PostgreSQL.
 */
describe("store size limits (real gateway, SQLite and PostgreSQL)", { timeout: 180_000 }, () => {
  let postgres: PostgresServer;
  const gateways: Record<string, ReliabilityGateway> = {};
  // "big" answers 4 MB in 4 KiB deltas; anything else answers briefly.
  const backend = () =>
    createScriptedBackend((request) =>
      JSON.stringify(request.input).includes("big")
        ? { chunks: Array.from({ length: 1000 }, (_, i) => `${i % 10}`.repeat(4096)) }
        : { chunks: ["ok"] },
    );
  beforeAll(async () => {
    postgres = await startPostgresServer();
    const stores = { sqlite: "memory", postgres: await postgres.createDatabase("store_limits") };
    for (const [name, store] of Object.entries(stores))
      gateways[name] = await gatewayOver(backend(), {
        PROXY_STORE: store,
        PROXY_STORE_MAX_RESPONSE_BYTES: String(MAX_RESPONSE),
        PROXY_STORE_MAX_CONVERSATION_BYTES: String(MAX_CONVERSATION),
        PROXY_STORE_LEASE_MS: "2000",
      });
  }, 120_000);
  afterAll(async () => {
    for (const gateway of Object.values(gateways)) await gateway.close();
    await postgres?.stop();
  });

  const send = (url: string, method: string, path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  for (const store of ["sqlite", "postgres"]) {
    it(`${store}: a background answer of 4 MB is stopped at the limit and stored failed, within it`, async () => {
      const url = gateways[store]!.url;
      const created = (await (
        await send(url, "POST", "/v1/responses", { model: "m", input: "big answer", background: true })
      ).json()) as { id: string };
      let final: { status: string; error?: { code: string } } | undefined;
      await waitUntil(async () => {
        final = (await (await send(url, "GET", `/v1/responses/${created.id}`)).json()) as typeof final;
        return final?.status !== "queued" && final?.status !== "in_progress";
      }, "the background turn to end");
      expect(final).toMatchObject({ status: "failed", error: { code: "response_too_large" } });
      // Everything stored for it (the body and every event) is within the limit.
      const replay = await (await send(url, "GET", `/v1/responses/${created.id}?stream=true`)).text();
      expect(replay.length).toBeLessThan(MAX_RESPONSE * 1.1);
      expect(replay).toContain("response_too_large");
      expect(JSON.stringify(final).length).toBeLessThan(MAX_RESPONSE);
    });

    it(`${store}: a 2 MB input is answered but not stored, with the warning header`, async () => {
      const url = gateways[store]!.url;
      const res = await send(url, "POST", "/v1/responses", { model: "m", input: "x ".repeat(1024 * 1024) });
      expect(res.status).toBe(200);
      expect(res.headers.get("x-proxy-store-warning")).toMatch(/not stored/);
      const { id } = (await res.json()) as { id: string };
      expect((await send(url, "GET", `/v1/responses/${id}`)).status).toBe(404);
    });

    it(`${store}: a conversation grows to its bound and no further`, async () => {
      const url = gateways[store]!.url;
      const conversation = (await (await send(url, "POST", "/v1/conversations", {})).json()) as {
        id: string;
      };
      const item = { type: "message", role: "user", content: "y".repeat(50_000) };
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++)
        statuses.push(
          (await send(url, "POST", `/v1/conversations/${conversation.id}/items`, { items: [item] })).status,
        );
      expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
      expect(statuses.slice(4)).toEqual([413, 413]);
      const refused = await send(url, "POST", `/v1/conversations/${conversation.id}/items`, {
        items: [item],
      });
      expect(JSON.stringify(await refused.json())).toContain("conversation_too_large");
      // A turn in the full conversation is answered; the header says it was not kept.
      const turn = await send(url, "POST", "/v1/responses", {
        model: "m",
        conversation: conversation.id,
        input: "z".repeat(60_000),
      });
      expect(turn.status).toBe(200);
      expect(turn.headers.get("x-proxy-store-warning")).toMatch(
        /conversation_too_large|PROXY_STORE_MAX_CONVERSATION_BYTES/,
      );
      // Deleting items makes room again.
      const items = (await (
        await send(url, "GET", `/v1/conversations/${conversation.id}/items?limit=100`)
      ).json()) as {
        data: Array<{ id: string }>;
      };
      for (const { id } of items.data.slice(0, 2))
        expect((await send(url, "DELETE", `/v1/conversations/${conversation.id}/items/${id}`)).status).toBe(
          200,
        );
      expect(
        (await send(url, "POST", `/v1/conversations/${conversation.id}/items`, { items: [item] })).status,
      ).toBe(200);
    });
  }
});
