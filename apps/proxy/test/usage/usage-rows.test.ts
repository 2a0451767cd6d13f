import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openSqliteStore } from "@proxy/adapter-store-sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startUpstreamGateway } from "../e2e/upstream-gateway.js";
import { ADMIN, adminGet } from "./support.js";

const LIMITED = "sk-limited-0123456789";
const FREE = "sk-free-0123456789";
const DAY_MS = 86_400_000;
const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);

const chat = (url: string, key: string, model: string) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] }),
  });

interface UsageAnswer {
  data: Array<{ key: string; route: string; day: string; requests: number }>;
  total: { requests: number };
  has_more: boolean;
  next_page: string | null;
}
const usage = async (url: string, query = "") =>
  (await (await adminGet(url, `/admin/usage${query}`)).json()) as UsageAnswer;

const row = (key: string, route: string, on: string) => ({
  key,
  route,
  day: on,
  requests: 1,
  inputTokens: 1,
  cachedInputTokens: 0,
  outputTokens: 1,
  reasoningTokens: 0,
  toolCalls: 0,
  webSearches: 0,
  errors: 0,
});

describe("usage rows on a SQLite file stay bounded", { timeout: 120_000 }, () => {
  let dir: string;
  let stack: Awaited<ReturnType<typeof startUpstreamGateway>>;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "proxy-usage-rows-"));
    const path = join(dir, "gateway.sqlite");
    // Usage left by an earlier run: rows of 45 days ago go at start, rows of 5 days ago stay.
    const earlier = await openSqliteStore(path);
    await earlier.recordUsage([row("free", "local", day(45)), row("free", "local", day(5))]);
    await earlier.close();
    stack = await startUpstreamGateway(
      [() => ({ text: "ok", usage: { inputTokens: 10, outputTokens: 2 } })],
      ([local]) => [{ id: "local", backend: "openai-compatible", baseUrl: local, aliases: ["local-alias"] }],
      {
        PROXY_API_KEYS: JSON.stringify([
          { name: "limited", key: LIMITED, limits: { rpm: 1 } },
          { name: "free", key: FREE },
        ]),
        PROXY_ADMIN_KEY: ADMIN,
        PROXY_STORE: `sqlite:${path}`,
        PROXY_USAGE_RETENTION_DAYS: "30",
        LOG_LEVEL: "silent",
      },
    );
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("model names a client makes up add one row, not one each; refused turns count under their route", async () => {
    for (let i = 0; i < 20; i++) {
      const unknown = await chat(stack.url, FREE, `made-up-${i}-${"x".repeat(200)}`);
      expect(unknown.status).toBe(404);
    }
    // The limited key: one turn a minute; the refused ones name the route by an alias, or nothing known.
    const statuses: number[] = [];
    for (const model of ["local", "local-alias", "local", "nonsense-1", "nonsense-2"])
      statuses.push((await chat(stack.url, LIMITED, model)).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(3);

    const today = day(0);
    const rows = (await usage(stack.url, `?from=${today}`)).data;
    expect(rows.map((r) => `${r.key} ${r.route}`).sort()).toEqual(
      ["free (unknown)", "limited (unknown)", "limited local"].sort(),
    );
    expect(rows.find((r) => r.key === "free")?.requests).toBe(20);
    expect(rows.find((r) => r.key === "limited" && r.route === "local")?.requests).toBe(3);
  });

  it("forgets rows older than PROXY_USAGE_RETENTION_DAYS", async () => {
    const old = await usage(stack.url, `?key=free&to=${day(1)}`);
    expect(old.data.map((r) => r.day)).toEqual([day(5)]);
  });

  it("answers /admin/usage a page at a time, with the totals of every page", async () => {
    const all = await usage(stack.url);
    expect(all.has_more).toBe(false);
    expect(all.next_page).toBeNull();
    const seen: UsageAnswer["data"] = [];
    let query = "?limit=1";
    for (let pages = 0; pages < 10; pages++) {
      const page = await usage(stack.url, query);
      expect(page.data.length).toBeLessThanOrEqual(1);
      expect(page.total).toEqual(all.total);
      seen.push(...page.data);
      if (!page.has_more) break;
      expect(page.next_page).toEqual(expect.any(String));
      query = `?limit=1&page=${page.next_page}`;
    }
    expect(seen).toEqual(all.data);
    expect(all.data.length).toBeGreaterThanOrEqual(3);
  });

  it("refuses a bad limit or page with a 400 naming it", async () => {
    for (const [query, param] of [
      ["?limit=0", "limit"],
      ["?limit=1001", "limit"],
      ["?limit=ten", "limit"],
      ["?page=not-a-cursor", "page"],
      [`?page=${"A".repeat(5000)}`, "page"],
    ] as const) {
      const res = await adminGet(stack.url, `/admin/usage${query}`);
      expect(res.status, query).toBe(400);
      expect(((await res.json()) as { error: { param: string } }).error.param).toBe(param);
    }
  });
});
