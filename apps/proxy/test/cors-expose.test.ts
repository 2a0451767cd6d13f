import { createScriptedBackend } from "@proxy/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { serveApp } from "./support/serve-app.js";

const ORIGIN = "app://obsidian.md";
/** Response headers a browser reads without being told (CORS-safelisted) or that CORS itself sets. */
const READABLE_ANYWAY = new Set([
  "cache-control",
  "content-language",
  "content-length",
  "content-type",
  "expires",
  "last-modified",
  "pragma",
  // Transport and CORS headers, not for script to read.
  "connection",
  "date",
  "keep-alive",
  "transfer-encoding",
  "vary",
]);

const exposedBy = (res: Response) =>
  new Set(
    (res.headers.get("access-control-expose-headers") ?? "").split(",").map((h) => h.trim().toLowerCase()),
  );

/** Every header of the answer a browser could not read unless it is exposed. */
const unreadable = (res: Response) => {
  const exposed = exposedBy(res);
  return [...res.headers.keys()].filter(
    (h) => !READABLE_ANYWAY.has(h) && !h.startsWith("access-control-") && !exposed.has(h),
  );
};

describe("CORS: a browser client can read the gateway's response headers", () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });
  const start = async () => {
    const served = await serveApp(
      createScriptedBackend([{ chunks: ["Hello!"] }, { chunks: ["Hi!"] }], { models: [{ id: "m" }] }),
      { corsOrigins: [ORIGIN] },
    );
    closers.push(served.close);
    return served;
  };

  it("names the gateway's headers, the codex plan headers and the error headers in access-control-expose-headers", async () => {
    const { url } = await start();
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect([...exposedBy(res)]).toEqual(
      expect.arrayContaining([
        "x-request-id",
        "request-id",
        "x-proxy-route",
        "x-proxy-output-mode",
        "x-proxy-stop-after-tools-mode",
        "x-proxy-tool-call-count",
        "x-proxy-tool-call-truncated",
        "x-proxy-store-warning",
        "x-codex-primary-used-percent",
        "x-codex-primary-window-minutes",
        "x-codex-primary-reset-at",
        "x-codex-secondary-used-percent",
        "x-codex-secondary-window-minutes",
        "x-codex-secondary-reset-at",
        "retry-after",
        "www-authenticate",
      ]),
    );
    // What this answer actually carries is all readable (a header added later must join the list).
    expect(res.headers.get("x-proxy-tool-call-count")).toBe("0");
    expect(unreadable(res)).toEqual([]);
  });

  it("exposes every header of an Anthropic answer and of a 405 too", async () => {
    const { url } = await start();
    const messages = await fetch(`${url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: ORIGIN, "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "m", max_tokens: 16, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(messages.status).toBe(200);
    expect(messages.headers.get("request-id")).toBeTruthy();
    expect(unreadable(messages)).toEqual([]);
    const wrongMethod = await fetch(`${url}/v1/chat/completions`, {
      method: "DELETE",
      headers: { origin: ORIGIN },
    });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBeTruthy();
    expect(unreadable(wrongMethod)).toEqual([]);
  });
});
