import { get } from "node:http";
import { GatewayError } from "@proxy/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReliabilityGateway } from "../reliability/support.js";
import {
  ADMIN,
  ADMIN_KEY,
  adminJson,
  CLIENT_KEY,
  chatAs,
  inputText,
  inspectorGateway,
  type Row,
} from "./support.js";

describe("the inspector is same-origin only, whatever PROXY_CORS_ORIGINS allows", { timeout: 60_000 }, () => {
  let g: ReliabilityGateway;
  beforeAll(async () => {
    g = await inspectorGateway(() => ({ chunks: ["ok"] }), { PROXY_CORS_ORIGINS: "*" });
  });
  afterAll(() => g?.close());

  it("refuses another origin's requests and preflights with no CORS headers; the API keeps its CORS", async () => {
    const evil = { origin: "http://evil.example" };
    for (const path of ["/ui/api/requests", "/ui/api/overview", "/ui/api/stream", "/ui"]) {
      const res = await fetch(`${g.url}${path}`, { headers: { ...ADMIN, ...evil } });
      expect(res.status, path).toBe(403);
      expect(res.headers.get("access-control-allow-origin"), path).toBeNull();
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("cross_origin_refused");
    }
    const preflight = await fetch(`${g.url}/ui/api/requests`, {
      method: "OPTIONS",
      headers: {
        ...evil,
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization",
      },
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers.get("access-control-allow-origin")).toBeNull();
    // A browser's cross-site fetch says so even without an Origin it could fake.
    const site = await fetch(`${g.url}/ui/api/requests`, {
      headers: { ...ADMIN, "sec-fetch-site": "cross-site" },
    });
    expect(site.status).toBe(403);
    // Following a link to the page from another site still opens it (its login: no cookie is sent).
    // (node:http: fetch writes its own Sec-Fetch-Mode.)
    const link = await new Promise<{ status: number; body: string }>((resolve, reject) =>
      get(
        `${g.url}/ui`,
        { headers: { "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate" } },
        (res) => {
          let body = "";
          res.on("data", (d) => {
            body += d;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      ).on("error", reject),
    );
    expect(link.status).toBe(401);
    expect(link.body).toContain('action="/ui/login"');
    // Its own page's origin is served; so is a client that is no browser.
    const own = await fetch(`${g.url}/ui/api/requests`, { headers: { ...ADMIN, origin: g.url } });
    expect(own.status).toBe(200);
    expect(own.headers.get("access-control-allow-origin")).toBeNull();
    expect((await fetch(`${g.url}/ui/api/requests`, { headers: ADMIN })).status).toBe(200);
    const api = await fetch(`${g.url}/v1/models`, {
      headers: { ...evil, authorization: `Bearer ${CLIENT_KEY}` },
    });
    expect(api.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("signing out of the inspector", { timeout: 60_000 }, () => {
  let g: ReliabilityGateway;
  beforeAll(async () => {
    g = await inspectorGateway(() => ({ chunks: ["ok"] }));
  });
  afterAll(() => g?.close());

  const login = async () => {
    const res = await fetch(`${g.url}/ui/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `key=${ADMIN_KEY}`,
      redirect: "manual",
    });
    expect(res.status).toBe(303);
    return (res.headers.get("set-cookie") ?? "").split(";")[0] as string;
  };

  it("revokes the session: a copied cookie no longer works, another session still does", async () => {
    const cookie = await login();
    const other = await login();
    expect(cookie).not.toBe(other);
    expect(cookie).not.toContain(ADMIN_KEY);
    expect((await fetch(`${g.url}/ui/api/requests`, { headers: { cookie } })).status).toBe(200);
    const out = await fetch(`${g.url}/ui/logout`, {
      method: "POST",
      headers: { cookie },
      redirect: "manual",
    });
    expect(out.status).toBe(303);
    expect(out.headers.get("set-cookie")).toMatch(/^proxy_inspector=;.*Max-Age=0/);
    // The copy of the cookie taken before signing out.
    expect((await fetch(`${g.url}/ui/api/requests`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${g.url}/ui`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${g.url}/ui/api/requests`, { headers: { cookie: other } })).status).toBe(200);
    // A forged or mangled token is no session.
    expect((await fetch(`${g.url}/ui/api/requests`, { headers: { cookie: `${other}x` } })).status).toBe(401);
  });
});

describe("inspector redaction covers every place a configured key can be", { timeout: 60_000 }, () => {
  let g: ReliabilityGateway;
  beforeAll(async () => {
    g = await inspectorGateway(() => ({
      chunks: [`echo ${CLIENT_KEY} `, '<tool_call>{"name":"t","arguments":{}}</tool_call>'],
    }));
  });
  afterAll(() => g?.close());

  it("redacts it from headers, stop sequences, tool names and schemas, the model name and errors", async () => {
    const res = await chatAs(
      g.url,
      CLIENT_KEY,
      {
        model: `gpt-${CLIENT_KEY}`,
        stop: [`stop ${CLIENT_KEY}`],
        tools: [
          {
            type: "function",
            function: {
              name: `t_${CLIENT_KEY}`,
              description: `uses ${ADMIN_KEY}`,
              parameters: {
                type: "object",
                properties: { [CLIENT_KEY]: { type: "string", enum: [ADMIN_KEY] } },
              },
            },
          },
          { type: "function", function: { name: "t", parameters: { type: "object" } } },
        ],
        messages: [{ role: "user", content: `my key ${CLIENT_KEY}` }],
      },
      {
        "api-key": CLIENT_KEY,
        "x-forwarded-authorization": `Bearer ${ADMIN_KEY}`,
        "x-custom-note": `note ${CLIENT_KEY}`,
      },
    );
    expect(res.status).toBe(200);
    await res.text();
    const refused = await fetch(`${g.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${CLIENT_KEY}` },
      body: JSON.stringify({
        model: "m",
        messages: [{ role: "user", content: 42 }],
        user: ADMIN_KEY,
        stop: 7,
      }),
    });
    expect(refused.status).toBe(400);
    const { requests } = await adminJson<{ requests: Row[] }>(g.url, "/ui/api/requests");
    expect(requests).toHaveLength(2);
    for (const row of requests) {
      for (const path of [`/ui/api/requests/${row.seq}`, `/ui/api/requests/${row.seq}/export`]) {
        const text = await (await fetch(`${g.url}${path}`, { headers: ADMIN })).text();
        expect(text, path).not.toContain(CLIENT_KEY);
        expect(text, path).not.toContain(ADMIN_KEY);
        expect(text, path).not.toContain("0123456789");
      }
    }
    const detail = await (
      await fetch(`${g.url}/ui/api/requests/${requests[1]?.seq}`, { headers: ADMIN })
    ).text();
    for (const where of [
      '"api-key":"[redacted]"',
      '"x-forwarded-authorization":"Bearer [redacted]"',
      '"model":"gpt-[redacted]"',
      '"stopSequences":["stop [redacted]"]',
      '"name":"t_[redacted]"',
      '"[redacted]":{"type":"string","enum":["[redacted]"]}',
      "echo [redacted]",
    ])
      expect(detail).toContain(where);
    const list = await (await fetch(`${g.url}/ui/api/requests`, { headers: ADMIN })).text();
    expect(list).toContain('"model":"gpt-[redacted]"');
  });
});

describe("PROXY_INSPECTOR_BODIES=off keeps no error text that may quote the prompt", {
  timeout: 60_000,
}, () => {
  let g: ReliabilityGateway;
  beforeAll(async () => {
    g = await inspectorGateway(
      (request) => ({
        chunks: [],
        startError: new GatewayError("backend_error", `upstream 400: could not use '${inputText(request)}'`, {
          code: "upstream_refused",
        }),
      }),
      { PROXY_INSPECTOR_BODIES: "off" },
    );
  });
  afterAll(() => g?.close());

  it("keeps the failed turn's kind and code only, in the row, the detail and the error body", async () => {
    for (const stream of [false, true]) {
      const res = await chatAs(g.url, CLIENT_KEY, {
        stream,
        messages: [{ role: "user", content: "a very private prompt" }],
      });
      expect(await res.text()).toContain("a very private prompt");
    }
    const { requests } = await adminJson<{ requests: Row[] }>(g.url, "/ui/api/requests");
    expect(requests).toHaveLength(2);
    for (const row of requests) {
      expect(row.error).toBe("backend_error (upstream_refused) [message not recorded: bodies off]");
      const text = await (await fetch(`${g.url}/ui/api/requests/${row.seq}`, { headers: ADMIN })).text();
      expect(text).not.toContain("private prompt");
      const detail = JSON.parse(text) as { errorBody: { error: Record<string, unknown> } };
      expect(detail.errorBody.error).toMatchObject({
        code: "upstream_refused",
        message: "[not recorded: bodies off]",
      });
    }
  });
});

describe("redaction with many keys does not hold the event loop", { timeout: 120_000 }, () => {
  const keys = Array.from(
    { length: 500 },
    (_, i) => `sk-${String(i).padStart(4, "0")}-${Math.random().toString(36).slice(2, 14)}`,
  );
  let g: ReliabilityGateway;
  beforeAll(async () => {
    // Room for the whole request (a quarter of the bytes per request), so all of it is redacted when read.
    g = await inspectorGateway(() => ({ chunks: ["ok"] }), {
      PROXY_API_KEYS: keys.join(","),
      PROXY_INSPECTOR_MAX_BYTES: String(64 * 1024 * 1024),
    });
  });
  afterAll(() => g?.close());

  it("records a 7 MB request without a pass per key, and serves it redacted", async () => {
    // 1,750 messages of 4,000 random chars, each kept whole (the per-message cut) and redacted:
    // text of the keys' own alphabet, so a search per key cannot skip ahead.
    const noise = () => Array.from({ length: 400 }, () => Math.random().toString(36).slice(2, 12)).join("");
    const messages = Array.from({ length: 1_750 }, (_, i) => ({
      role: "user",
      content: `${i % 100 === 0 ? keys[i % 500] : ""}${noise().slice(0, 4_000)}`,
    }));
    // The longest the event loop was held (the gateway runs in this process): a 10 ms timer's lateness.
    let worst = 0;
    let last = performance.now();
    const lag = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last - 10);
      last = now;
    }, 10);
    const res = await chatAs(g.url, keys[0] as string, { messages });
    expect(res.status).toBe(200);
    await res.text();
    clearInterval(lag);
    console.log(`recording a 7 MB request held the event loop at most ${Math.round(worst)} ms`);
    // Generous for a loaded machine (decoding and summarizing 7 MB is still work): a pass per key
    // over the text held it for over 5 s.
    expect(worst).toBeLessThan(2_000);
    // Read back whole (an admin's read), with every key that was in it redacted, sent in slices.
    const { requests } = await adminJson<{ requests: Row[] }>(g.url, "/ui/api/requests");
    worst = 0;
    last = performance.now();
    const readLag = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last - 10);
      last = now;
    }, 10);
    const detail = await (
      await fetch(`${g.url}/ui/api/requests/${requests[0]?.seq}`, { headers: ADMIN })
    ).text();
    clearInterval(readLag);
    console.log(
      `reading it back (${detail.length} chars) held the event loop at most ${Math.round(worst)} ms`,
    );
    expect(detail.length).toBeGreaterThan(3_000_000);
    expect(detail).not.toContain(keys[100]);
    expect(detail).toContain("[redacted]");
  });
});
