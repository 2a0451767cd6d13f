import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, configurationTable, helpText, OPTIONS, resolveConfig } from "../src/index.js";

describe("configuration", () => {
  it("has sane defaults", () => {
    const config = resolveConfig({ env: {} });
    expect(config).toMatchObject({
      port: 8787,
      host: "127.0.0.1",
      apiKeys: [],
      outputMode: "openai-json",
      bodyLimitBytes: 8 * 1024 * 1024,
    });
  });

  it("layers file < env < flags", () => {
    const config = resolveConfig({
      file: { port: 1000, maxInFlight: 3 },
      env: {
        PORT: "2000",
        PROXY_MODEL_ALIASES: "gpt-4o=gpt-5.5, fast=gpt-5.6-luna",
        PROXY_STOP_AFTER_TOOLS: "off",
      },
      flags: { port: "3000" },
    });
    expect(config).toMatchObject({
      port: 3000,
      maxInFlight: 3,
      stopAfterTools: false,
      modelAliases: { "gpt-4o": "gpt-5.5", fast: "gpt-5.6-luna" },
    });
  });

  it.each([
    [{ PORT: "eighty" }, /PORT/],
    [{ PROXY_OUTPUT_MODE: "xml" }, /PROXY_OUTPUT_MODE/],
    [{ PROXY_MAX_IN_FLIGHT: "0" }, /PROXY_MAX_IN_FLIGHT/],
    [{ PROXY_API_KEYS: "short" }, /PROXY_API_KEYS/],
    [{ PROXY_STOP_AFTER_TOOLS: "maybe" }, /PROXY_STOP_AFTER_TOOLS/],
    [{ PROXY_MODEL_ALIASES: "novalue" }, /PROXY_MODEL_ALIASES/],
  ])("a bad value stops startup naming the option (%o)", (env, name) => {
    expect(() => resolveConfig({ env })).toThrow(ConfigError);
    expect(() => resolveConfig({ env })).toThrow(name);
  });

  it("names the flag when the bad value came from a flag", () => {
    expect(() => resolveConfig({ env: {}, flags: { maxQueue: "-1" } })).toThrow(/--max-queue/);
  });

  it("documents every option in docs/configuration.md and --help", () => {
    const doc = readFileSync(new URL("../../../docs/configuration.md", import.meta.url), "utf8");
    // Compare table rows cell by cell: the formatter may re-pad the Markdown columns.
    const rows = (md: string) =>
      md
        .split("\n")
        .filter((l) => l.startsWith("|") && !/^\|[\s|:-]+\|$/.test(l))
        .map((l) =>
          l
            .split("|")
            .map((cell) => cell.trim())
            .join("|"),
        );
    expect(rows(doc)).toEqual(rows(configurationTable()));
    for (const o of OPTIONS) expect(helpText()).toContain(o.flag);
  });
});
