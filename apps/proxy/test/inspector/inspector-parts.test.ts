import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/config.js";
import { createRedactor, partsText } from "../../src/inspector/redact.js";
import { createRequestLog } from "../../src/inspector/request-log.js";
import { findUiDir } from "../../src/inspector/static-files.js";
import { createTrafficStats } from "../../src/inspector/traffic-stats.js";

const open = (log: ReturnType<typeof createRequestLog>, i: number) =>
  log.open({ requestId: `r${i}`, at: i, method: "POST", path: "/v1/chat/completions" });

describe("the inspector's request log", () => {
  it("keeps the newest requests up to its count, newest first", () => {
    const log = createRequestLog({ maxRequests: 3, maxBytes: 1 << 20 });
    for (let i = 1; i <= 5; i++) open(log, i);
    expect(log.list().map((r) => r.requestId)).toEqual(["r5", "r4", "r3"]);
  });

  it("drops the oldest requests when recorded text passes its bytes, and caps one request at a quarter", () => {
    const log = createRequestLog({ maxRequests: 100, maxBytes: 4096 });
    const first = open(log, 1);
    expect(log.grow(first, 1000)).toBe(true);
    // One request may not take more than a quarter of the log.
    expect(log.grow(first, 100)).toBe(false);
    for (let i = 2; i <= 6; i++) expect(log.grow(open(log, i), 1000)).toBe(true);
    expect(log.bytes()).toBeLessThanOrEqual(4096);
    expect(log.list().map((r) => r.requestId)).toEqual(["r6", "r5", "r4", "r3"]);
    // A request pushed out while still running is no longer counted.
    const before = log.bytes();
    expect(log.grow(first, 0)).toBe(true);
    expect(log.bytes()).toBe(before);
  });
});

describe("the inspector's traffic per minute", () => {
  it("counts requests, errors and tool calls per minute and reads p50/p99 time to first token", () => {
    let now = 10 * 60_000;
    const stats = createTrafficStats(() => now);
    for (let i = 0; i < 99; i++) stats.observe({ failed: false, toolCalls: 1, ttftMs: 40 });
    stats.observe({ failed: true, toolCalls: 0, ttftMs: 9_000 });
    now += 60_000;
    stats.observe({ failed: false, toolCalls: 2 });
    const s = stats.series();
    expect(s.t).toHaveLength(60);
    expect(s.requests.slice(-2)).toEqual([100, 1]);
    expect(s.errors.slice(-2)).toEqual([1, 0]);
    expect(s.errorRate.slice(-2)).toEqual([1, 0]);
    expect(s.toolCalls.slice(-2)).toEqual([99, 2]);
    expect(s.ttftP50.at(-2)).toBe(50);
    expect(s.ttftP99.at(-2)).toBe(50);
    expect(s.ttftP50.at(-1)).toBeNull();
    // An hour later the old minutes are gone, not added to.
    now += 60 * 60_000;
    expect(stats.series().requests.every((n) => n === 0)).toBe(true);
  });
});

describe("the inspector's redaction", () => {
  it("replaces the gateway's keys and keeps no image data", () => {
    const r = createRedactor(["sk-secret-0123456789"]);
    const text = partsText(r, [
      { type: "text", text: "key sk-secret-0123456789 here" },
      { type: "image", url: "data:image/png;base64,AAAABBBBCCCC" },
      { type: "image", url: "https://img.example/cat.png?sig=abc" },
    ]);
    expect(text).toBe("key [redacted] here[image image/png, 9 bytes][image https://img.example/cat.png]");
  });
});

describe("the inspector's settings and files", () => {
  it("is off by default, and with API keys refuses to start without an admin key", () => {
    expect(resolveConfig({ env: {} }).inspector).toBe(false);
    expect(() =>
      resolveConfig({ env: { PROXY_INSPECTOR: "on", PROXY_API_KEYS: "sk-client-0123456789" } }),
    ).toThrow(/PROXY_INSPECTOR: the gateway has API keys, so the inspector needs PROXY_ADMIN_KEY/);
    const on = resolveConfig({ env: { PROXY_INSPECTOR: "on", PROXY_INSPECTOR_BODIES: "off" } });
    expect(on).toMatchObject({ inspector: true, inspectorBodies: false, inspectorMaxRequests: 200 });
  });

  it("finds the page's folder from the sources and from the built bundle, and ships it", () => {
    const root = fileURLToPath(new URL("../..", import.meta.url));
    expect(findUiDir(join(root, "src", "inspector"))).toBe(join(root, "ui"));
    expect(findUiDir(join(root, "dist"))).toBe(join(root, "ui"));
    const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { files: string[] };
    expect(pkg.files).toContain("ui");
  });

  it("serves uPlot exactly as the npm package ships it", () => {
    const root = fileURLToPath(new URL("../..", import.meta.url));
    const shipped = createRequire(join(root, "package.json")).resolve("uplot/dist/uPlot.iife.min.js");
    expect(readFileSync(join(root, "ui", "vendor", "uPlot.iife.min.js"), "utf8")).toBe(
      readFileSync(shipped, "utf8"),
    );
  });
});
