import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { findUiDir } from "@proxy/inspector";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config/config.js";

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
    expect(findUiDir(join(root, "src"))).toBe(join(root, "ui"));
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
