import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startE2E } from "./e2e-gateway.js";
import { searchingModel } from "./hosted-search-support.js";

const KEY = "sk-searcher-0123456789";
const ADMIN = "admin-0123456789abcdef";
const admin = { authorization: `Bearer ${ADMIN}` };

describe("hosted searches are accounted: per key in /admin/usage and Prometheus, capped by a key limit, in the inspector", {
  timeout: 60_000,
}, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let client: OpenAI;
  beforeAll(async () => {
    e2e = await startE2E(searchingModel, {
      PROXY_API_KEYS: JSON.stringify([{ name: "searcher", key: KEY, limits: { webSearchesPerDay: 1 } }]),
      PROXY_ADMIN_KEY: ADMIN,
      PROXY_STORE: "memory",
      PROXY_INSPECTOR: "on",
    });
    client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: KEY, maxRetries: 0 });
  }, 60_000);
  afterAll(() => e2e?.close());

  it("one search is counted for its key; the key's webSearchesPerDay then refuses the next request asking for search", async () => {
    const res = await client.responses.create({
      model: "e2e-model",
      input: "Weather?",
      tools: [{ type: "web_search" }],
    });
    expect(res.output.some((o) => o.type === "web_search_call")).toBe(true);

    const today = new Date().toISOString().slice(0, 10);
    const usage = (await (
      await fetch(`${e2e.url}/admin/usage?key=searcher&from=${today}`, { headers: admin })
    ).json()) as {
      total: { webSearches: number; requests: number };
    };
    expect(usage.total).toMatchObject({ requests: 1, webSearches: 1 });

    const metrics = await (await fetch(`${e2e.url}/metrics`)).text();
    expect(metrics).toMatch(/proxy_key_web_searches_total\{key="searcher"\} 1\b/);
    expect(metrics).toMatch(/proxy_web_searches_total\{api="responses"\} 1\b/);

    const refused = await client.responses
      .create({ model: "e2e-model", input: "Again?", tools: [{ type: "web_search" }] })
      .catch((e: unknown) => e as InstanceType<typeof OpenAI.APIError>);
    expect(refused).toBeInstanceOf(OpenAI.APIError);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(429);
    expect(String((refused as Error).message)).toContain("webSearchesPerDay");
    // A request that does not ask for search is not capped by it.
    const plain = await client.responses.create({ model: "e2e-model", input: "Hi" });
    expect(plain.output_text).toBe("no search");
  });

  it("the inspector shows the search as its own step: its id and query", async () => {
    const list = (await (await fetch(`${e2e.url}/ui/api/requests`, { headers: admin })).json()) as {
      requests: Array<{ seq: number; path: string; status: number }>;
    };
    // The first request searched; the last one (no search asked) did not.
    const answered = list.requests.filter((r) => r.path === "/v1/responses" && r.status === 200);
    const [searched, plain] = answered.sort((a, b) => a.seq - b.seq);
    const detail = (await (
      await fetch(`${e2e.url}/ui/api/requests/${searched?.seq}`, { headers: admin })
    ).json()) as {
      searches: Array<{ id: string; query: string; attempt: number }>;
    };
    expect(detail.searches).toEqual([
      {
        atMs: expect.any(Number),
        attempt: 0,
        id: expect.stringMatching(/^ws_/),
        query: "weather oslo today",
      },
    ]);
    const none = (await (
      await fetch(`${e2e.url}/ui/api/requests/${plain?.seq}`, { headers: admin })
    ).json()) as {
      searches: unknown[];
    };
    expect(none.searches).toEqual([]);
  });
});
