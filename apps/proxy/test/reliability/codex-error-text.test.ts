import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CodexGateway, chat, gatewayOverCodex } from "./support.js";

/** A provider message with links inside prose, as ChatGPT's usage-limit text has. */
const LIMIT_TEXT =
  "You've hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/codex/settings/usage to purchase more credits.";

describe("backend error text passed to clients (real codex app-server)", { timeout: 60_000 }, () => {
  let gateway: CodexGateway;
  beforeAll(async () => {
    gateway = await gatewayOverCodex(() => ({
      fail: { status: 400, body: { error: { type: "invalid_request_error", message: LIMIT_TEXT } } },
    }));
  }, 60_000);
  afterAll(() => gateway?.close());

  it("a URL is removed, the punctuation after it stays", async () => {
    const res = await chat(gateway.url, "hello");
    const body = (await res.json()) as { error: { message: string } };
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(body.error.message).not.toMatch(/https?:|chatgpt\.com/);
    expect(body.error.message).toContain("Upgrade to Pro (<url>), visit <url> to purchase more credits.");
  });
});
