import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReliabilityGateway } from "../reliability/support.js";
import { ensureChromium, launchChromium } from "../support/chromium.js";
import { ADMIN, ADMIN_KEY, adminJson, CLIENT_KEY, chatAs, inspectorGateway, type Row } from "./support.js";

const weather = {
  type: "function",
  function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } },
};
const ask = { tools: [weather], messages: [{ role: "user", content: "weather in Oslo?" }] };

interface Overview {
  gateway: { version: string; uptimeSeconds: number; codexVersion?: string };
  backend: { credentials: string };
  traffic: { errors: number[]; clientErrors: number[]; requests: number[] };
}

/** An operator's first questions, answered by the page and its API (scripted model, real gateway). */
describe("the inspector answers an operator's first questions", { timeout: 180_000 }, () => {
  let g: ReliabilityGateway;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

  beforeAll(async () => {
    ensureChromium();
    // Native mode when the backend is asked for it; prompt mode writes the call as a block.
    g = await inspectorGateway(
      (request) =>
        request.tools
          ? {
              chunks: [],
              toolCalls: [{ callId: "call_1", name: "get_weather", arguments: '{"city":"Oslo"}' }],
            }
          : {
              chunks: ["Sure. ", '<tool_call>{"name":"get_weather","arguments":{"city":"Oslo"}}</tool_call>'],
            },
      { PROXY_TOOL_MODE: "auto" },
      { nativeTools: true },
    );
    const sent = [
      await chatAs(g.url, CLIENT_KEY, ask, { "x-request-id": "req-native-1" }),
      await chatAs(g.url, CLIENT_KEY, ask, { "x-request-id": "req-prompt-1", "x-proxy-tool-mode": "prompt" }),
      await chatAs(g.url, "sk-wrong-0123456789", ask, { "x-request-id": "req-badkey-1" }),
      await chatAs(g.url, CLIENT_KEY, { messages: 42 }, { "x-request-id": "req-badbody-1" }),
    ];
    expect(sent.map((r) => r.status)).toEqual([200, 200, 401, 400]);
    browser = await launchChromium();
    page = await browser.context.newPage();
    await page.goto(`${g.url}/ui`);
    await page.fill("#key", ADMIN_KEY);
    await page.click("button[type=submit]");
    await page.waitForSelector("text=Codex app-server pool");
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await g?.close();
  });

  it("lists which tools were called and in which mode, and finds a request by its id", async () => {
    const { requests } = await adminJson<{ requests: Row[] }>(g.url, "/ui/api/requests");
    const byId = Object.fromEntries(requests.map((r) => [r.requestId, r]));
    expect(byId["req-native-1"]).toMatchObject({ mode: "native", calls: ["get_weather"], toolCalls: 1 });
    expect(byId["req-prompt-1"]).toMatchObject({ mode: "prompt", calls: ["get_weather"], toolCalls: 1 });
    const found = await adminJson<{ requests: Row[] }>(g.url, "/ui/api/requests?id=req-prompt-1");
    expect(found.requests.map((r) => r.requestId)).toEqual(["req-prompt-1"]);

    await page.goto(`${g.url}/ui#requests`);
    await page.waitForSelector("tr.row");
    const tools = await page.locator("tr.row td.tools").allTextContents();
    expect(tools).toContain("get_weather · native");
    expect(tools).toContain("get_weather · prompt");
    await page.fill("input[name=id]", "req-native");
    await page.press("input[name=id]", "Enter");
    await expect.poll(() => page.locator("tr.row").count()).toBe(1);
    expect(await page.locator("tr.row td.tools").textContent()).toBe("get_weather · native");
    await page.fill("input[name=id]", "");
    await page.press("input[name=id]", "Enter");
    await expect.poll(() => page.locator("tr.row").count()).toBe(4);
  });

  it("shows native calls, not an empty raw-text bar, for a native turn", async () => {
    const { requests } = await adminJson<{ requests: Row[] }>(g.url, "/ui/api/requests?id=req-native-1");
    await page.goto(`${g.url}/ui#request/${requests[0]?.seq}`);
    await page.waitForSelector("text=Native calls the model made");
    expect(await page.locator("ol.native-calls").textContent()).toContain(
      'get_weather (call_1): {"city":"Oslo"}',
    );
    expect(await page.locator("text=Raw model text, as streamed").count()).toBe(0);
    expect(await page.locator("pre.raw").count()).toBe(0);
  });

  it("shows what a refused request was refused for, without empty sections", async () => {
    for (const [id, status, says] of [
      ["req-badkey-1", 401, "Incorrect API key provided"],
      ["req-badbody-1", 400, "messages"],
    ] as const) {
      const { requests } = await adminJson<{ requests: Row[] }>(g.url, `/ui/api/requests?id=${id}`);
      await page.goto(`${g.url}/ui#request/${requests[0]?.seq}`);
      await page.waitForSelector(`text=Refused (HTTP ${status}) before any turn ran`);
      expect(await page.locator("p.refusal").textContent()).toContain(says);
      const main = (await page.textContent("main")) ?? "";
      for (const empty of ["Timings", "decisions", "What the client received", "Raw model text"])
        expect(main, `${id}: ${empty}`).not.toContain(empty);
    }
  });

  it("puts the versions, uptime and codex's credentials on the overview, and splits 4xx from failures", async () => {
    const o = await adminJson<Overview>(g.url, "/ui/api/overview");
    expect(o.gateway.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(o.gateway.uptimeSeconds).toBeGreaterThanOrEqual(0);
    expect(o.backend.credentials).toBe("no problem known");
    expect(total(o.traffic.requests)).toBe(4);
    expect(total(o.traffic.clientErrors)).toBe(2);
    expect(total(o.traffic.errors)).toBe(0);
    await page.goto(`${g.url}/ui#overview`);
    await page.waitForSelector(".chart .uplot canvas");
    const cards = (await page.locator(".cards").textContent()) ?? "";
    expect(cards).toContain(`version${o.gateway.version}`);
    expect(cards).toContain("codex credentialsno problem known");
    expect(cards).toMatch(/up\d+ min \d+ s/);
    expect(cards).toContain("client errors (4xx)50 %");
    expect(cards).toContain("gateway / backend failures0 %");
    expect(await page.locator(".chart").last().textContent()).toContain("client 4xx %");
  });

  it("exports one request as a JSON file, secrets redacted", async () => {
    const { requests } = await adminJson<{ requests: Row[] }>(g.url, "/ui/api/requests?id=req-prompt-1");
    const res = await fetch(`${g.url}/ui/api/requests/${requests[0]?.seq}/export`, { headers: ADMIN });
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="request-req-prompt-1.json"');
    const text = await res.text();
    expect(text).not.toContain(CLIENT_KEY);
    const file = JSON.parse(text) as {
      gateway: string;
      request: { requestId: string; client: { headers: object } };
    };
    expect(file.request.requestId).toBe("req-prompt-1");
    expect(file.request.client.headers).toMatchObject({ authorization: "[redacted]" });
    // The page links it as a download.
    await page.goto(`${g.url}/ui#request/${requests[0]?.seq}`);
    const link = page.locator("a.export");
    await link.waitFor();
    expect(await link.getAttribute("href")).toBe(`/ui/api/requests/${requests[0]?.seq}/export`);
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    expect(download.suggestedFilename()).toBe("request-req-prompt-1.json");
  });
});
