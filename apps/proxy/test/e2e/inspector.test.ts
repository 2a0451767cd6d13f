import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { planUsageHeaders } from "@proxy/adapter-codex-appserver/testing";
import OpenAI from "openai";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureChromium, launchChromium } from "../support/chromium.js";
import { PNG } from "../support/image-server.js";
import { type RecordedRequest, startE2E, toolCallText, transcriptOf } from "./e2e-gateway.js";

const CLIENT_KEY = "sk-client-0123456789";
const ADMIN_KEY = "admin-0123456789abcdef";
const IMAGE_DATA = PNG.toString("base64");
// Screenshots for the README with UPDATE_SCREENSHOTS=1; otherwise into a throwaway folder.
const SHOTS = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL("../../../../docs/inspector/", import.meta.url))
  : mkdtempSync(join(tmpdir(), "inspector-shots-"));

/** The scripted model: a weather call, an answer once the result is back, a bad strict call. */
const model = (request: RecordedRequest) => {
  const transcript = transcriptOf(request);
  if (transcript.includes("strict please"))
    return { chunks: ["Let me check. ", toolCallText("get_weather", { city: 42 })] };
  if (transcript.includes("sunny, 21"))
    return {
      text: "It is sunny in Paris.",
      usage: { inputTokens: 60, outputTokens: 6 },
      // The ChatGPT plan's usage, as codex learns it from its provider's headers.
      headers: planUsageHeaders({
        primary: { usedPercent: 42.6, windowMinutes: 300, resetAt: Math.floor(Date.now() / 1000) + 3600 },
        secondary: { usedPercent: 9, windowMinutes: 10080, resetAt: Math.floor(Date.now() / 1000) + 86_400 },
      }),
    };
  return {
    // The model repeats the client's key: the page must not.
    chunks: [
      `Checking (you said ${CLIENT_KEY}).\n`,
      toolCallText("get_weather", { city: "Paris" }).slice(0, 25),
      toolCallText("get_weather", { city: "Paris" }).slice(25),
    ],
    usage: { inputTokens: 50, outputTokens: 12 },
  };
};

const weather = (strict: boolean) => ({
  type: "function" as const,
  function: {
    name: "get_weather",
    ...(strict ? { strict: true } : {}),
    parameters: {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
      ...(strict ? { additionalProperties: false } : {}),
    },
  },
});

const rowCount = (page: Page) => page.locator("tr.row").count();

describe("request inspector in a real browser (real codex app-server)", { timeout: 180_000 }, () => {
  let e2e: Awaited<ReturnType<typeof startE2E>>;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let client: OpenAI;

  beforeAll(async () => {
    ensureChromium();
    e2e = await startE2E(model, {
      PROXY_INSPECTOR: "on",
      PROXY_API_KEYS: CLIENT_KEY,
      PROXY_ADMIN_KEY: ADMIN_KEY,
    });
    client = new OpenAI({ baseURL: `${e2e.url}/v1`, apiKey: CLIENT_KEY, maxRetries: 0 });
    browser = await launchChromium();
    page = await browser.context.newPage();
    mkdirSync(SHOTS, { recursive: true });
  }, 600_000);
  afterAll(async () => {
    await browser?.close();
    await e2e?.close();
  });

  it("refuses the page and its API without the admin key, and a cross-site login", async () => {
    const bare = await fetch(`${e2e.url}/ui`);
    expect(bare.status).toBe(401);
    expect(await bare.text()).toContain('action="/ui/login"');
    for (const auth of [undefined, `Bearer ${CLIENT_KEY}`, "Bearer wrong-key-0123456789"]) {
      const res = await fetch(`${e2e.url}/ui/api/requests`, { headers: auth ? { authorization: auth } : {} });
      expect(res.status).toBe(401);
      expect(await res.text()).not.toContain("requests");
    }
    const admin = await fetch(`${e2e.url}/ui/api/requests`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    expect(admin.status).toBe(200);
    const csrf = await fetch(`${e2e.url}/ui/login`, {
      method: "POST",
      headers: { origin: "http://evil.example", "content-type": "application/x-www-form-urlencoded" },
      body: `key=${ADMIN_KEY}`,
      redirect: "manual",
    });
    expect(csrf.status).toBe(403);
    expect(csrf.headers.get("set-cookie")).toBeNull();

    const refused = await page.goto(`${e2e.url}/ui`);
    expect(refused?.status()).toBe(401);
    await page.fill("#key", CLIENT_KEY);
    await page.click("button[type=submit]");
    await expect.poll(() => page.textContent("[role=alert]")).toContain("not the admin key");
    await page.screenshot({ path: join(SHOTS, "login.png") });
  });

  it("signs in with the admin key into an HttpOnly, SameSite=Strict session", async () => {
    await page.fill("#key", ADMIN_KEY);
    await page.click("button[type=submit]");
    await page.waitForSelector("text=Codex app-server pool");
    const [cookie] = await browser.context.cookies(`${e2e.url}/ui`);
    expect(cookie).toMatchObject({
      name: "proxy_inspector",
      httpOnly: true,
      sameSite: "Strict",
      path: "/ui",
    });
    expect(cookie?.value).not.toContain(ADMIN_KEY);
    await page.waitForSelector("#live.on");
  });

  it("shows a tool round trip and a failed strict call live, as they arrive", async () => {
    await page.goto(`${e2e.url}/ui#requests`);
    await page.waitForSelector("#live.on");
    expect(await rowCount(page)).toBe(0);
    const providerCalls = e2e.provider.requests.length;

    const first = await client.chat.completions.create({
      model: "m",
      tools: [weather(false)],
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: `Weather in Paris? (my key is ${CLIENT_KEY})` },
            { type: "image_url", image_url: { url: `data:image/png;base64,${IMAGE_DATA}` } },
          ],
        },
      ],
    });
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === "function" && call.function.name).toBe("get_weather");
    await expect.poll(() => rowCount(page), { timeout: 10_000 }).toBe(1);

    const second = await client.chat.completions.create({
      model: "m",
      tools: [weather(false)],
      messages: [
        { role: "user", content: "Weather in Paris?" },
        { role: "assistant", content: null, tool_calls: first.choices[0]?.message.tool_calls ?? [] },
        { role: "tool", tool_call_id: call?.id ?? "", content: "sunny, 21" },
      ],
    });
    expect(second.choices[0]?.message.content).toBe("It is sunny in Paris.");
    await expect.poll(() => rowCount(page), { timeout: 10_000 }).toBe(2);

    const failed = await client.chat.completions
      .create({ model: "m", tools: [weather(true)], messages: [{ role: "user", content: "strict please" }] })
      .then(
        () => undefined,
        (e: { status?: number }) => e,
      );
    expect(failed?.status).toBe(422);
    await expect.poll(() => rowCount(page), { timeout: 10_000 }).toBe(3);
    await expect.poll(() => page.locator("tr.row.failed td.status").first().textContent()).toBe("422");
    await page.screenshot({ path: join(SHOTS, "requests.png") });

    // The filters: failed only, then tool calls only.
    await page.check("input[name=failed]");
    await expect.poll(() => rowCount(page)).toBe(1);
    await page.uncheck("input[name=failed]");
    await page.check("input[name=tools]");
    await expect.poll(() => rowCount(page)).toBe(1);
    await page.uncheck("input[name=tools]");
    await expect.poll(() => rowCount(page)).toBe(3);
    // Reading the inspector never reached the model: exactly the three turns did (plus the corrective one).
    expect(e2e.provider.requests.length - providerCalls).toBe(4);
  });

  it("shows the tool call's timeline: what was sent, the raw model text, the parser's decision", async () => {
    // Newest first: the first request is the last row.
    await page.locator("tr.row").last().click();
    await page.waitForSelector("text=Raw model text, as streamed");
    const raw = await page.locator("pre.raw").first().textContent();
    expect(raw).toContain('Checking (you said [redacted]).\n<tool_call>{"name":"get_weather"');
    const decisions = await page.locator("ol.decisions").textContent();
    expect(decisions).toContain("block parsed: get_weather (json)");
    expect(await page.locator("ol.calls").textContent()).toContain("get_weather");
    expect(await page.textContent("main")).toContain("prompt mode");
    await page.screenshot({ path: join(SHOTS, "request.png"), fullPage: true });

    // Redaction: neither key nor the image's data reach the page.
    await page.click("text=headers (secrets redacted)");
    const text = (await page.textContent("main")) ?? "";
    expect(text).toContain('"authorization": "[redacted]"');
    expect(text).toContain("my key is [redacted]");
    expect(text).toMatch(/\[image image\/png, \d+ bytes\]/);
    const html = await page.content();
    for (const secret of [CLIENT_KEY, ADMIN_KEY, IMAGE_DATA.slice(0, 40)]) expect(html).not.toContain(secret);
    const api = await (
      await fetch(`${e2e.url}/ui/api/requests/1`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
    ).text();
    for (const secret of [CLIENT_KEY, ADMIN_KEY, IMAGE_DATA.slice(0, 40)]) expect(api).not.toContain(secret);
  });

  it("shows the failed strict call: the rejection, the corrective turn and the exact error", async () => {
    await page.goto(`${e2e.url}/ui#requests`);
    await page.locator("tr.row.failed").first().click();
    await page.waitForSelector("text=The error the client got (HTTP 422)");
    const decisions = (await page.locator("ol.decisions").textContent()) ?? "";
    expect(decisions).toContain("rejected get_weather: schema-mismatch (strict)");
    expect(decisions).toContain("violation tool_call_validation_failed");
    expect(await page.textContent("main")).toContain("Backend attempt 1 (corrective turn)");
    const errorBody = await page.locator(".client-error pre").textContent();
    expect(JSON.parse(errorBody ?? "{}")).toMatchObject({ error: { type: "invalid_response_error" } });
    expect(errorBody).toContain("broke the tool rules");
    await page.screenshot({ path: join(SHOTS, "failed-request.png"), fullPage: true });
  });

  it("draws the last hour on the overview", async () => {
    await page.goto(`${e2e.url}/ui#overview`);
    await page.waitForSelector(".chart .uplot canvas");
    expect(await page.locator(".chart .uplot").count()).toBe(3);
    const plan = await page.textContent("#plan-usage");
    // codex reports whole percents.
    expect(plan).toContain("primary (5 h window): 43% used");
    expect(plan).toContain("secondary (7 d window): 9% used");
    const overview = (await (
      await fetch(`${e2e.url}/ui/api/overview`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })
    ).json()) as { traffic: { requests: number[]; toolCalls: number[] } };
    // Summed over the hour: the requests may straddle a minute boundary.
    const total = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    expect(total(overview.traffic.requests)).toBe(3);
    expect(total(overview.traffic.toolCalls)).toBe(1);
    await page.screenshot({ path: join(SHOTS, "overview.png") });
  });

  it("records a refused request with the exact error body the client got", async () => {
    const res = await fetch(`${e2e.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer wrong-key-0123456789", "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(401);
    const sent = await res.json();
    const admin = { authorization: `Bearer ${ADMIN_KEY}` };
    const list = (await (
      await fetch(`${e2e.url}/ui/api/requests?status=4xx`, { headers: admin })
    ).json()) as {
      requests: Array<{ seq: number; status: number }>;
    };
    const refused = list.requests.find((r) => r.status === 401);
    const detail = (await (
      await fetch(`${e2e.url}/ui/api/requests/${refused?.seq}`, { headers: admin })
    ).json()) as {
      errorBody: unknown;
    };
    expect(detail.errorBody).toEqual(sent);
    await page.goto(`${e2e.url}/ui#request/${refused?.seq}`);
    // Refused before any turn: what and why, with no empty timeline around it.
    await page.waitForSelector("text=Refused (HTTP 401) before any turn ran");
    expect(await page.locator("p.refusal").textContent()).toContain("Incorrect API key provided.");
    expect(await page.textContent("main")).not.toContain("Raw model text");
  });
});
