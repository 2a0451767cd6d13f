import { readFileSync } from "node:fs";
import { DEFAULT_TURN_SETTINGS } from "@proxy/core/gateway";
import { describe, expect, it } from "vitest";
import type { UnknownSetting } from "../src/config/config.js";
import {
  ConfigError,
  configurationDoc,
  configurationTable,
  helpText,
  OPTIONS,
  resolveConfig,
  turnSettingsFrom,
} from "../src/index.js";

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

  it("holds in docs/configuration.md exactly the table the option declarations render (pnpm docs:config)", () => {
    const doc = readFileSync(new URL("../../../docs/configuration.md", import.meta.url), "utf8");
    expect(configurationDoc(doc)).toBe(doc);
    // The render replaces the table whole: a stale row, a missing one or an extra one is a difference.
    const stale = doc.replace(
      "| `PORT` | `--port` | `port` | `8787` |",
      "| `PORT` | `--port` | `port` | `80` |",
    );
    expect(configurationDoc(stale)).toBe(doc);
    const extra = doc.replace(configurationTable(), `${configurationTable()}\n| \`PROXY_X\` | | | | |`);
    expect(configurationDoc(extra)).toBe(doc);
  });

  it("gives core's turn settings the options that declare them, core's defaults otherwise", () => {
    const settings = turnSettingsFrom(
      resolveConfig({ env: { PROXY_CORRECTIVE_RETRIES: "3", PROXY_TOOL_BLOCK_MAX_BYTES: "2048" } }),
    );
    expect(settings).toMatchObject({ correctiveRetries: 3, maxBlockBytes: 2048, requestTimeoutMs: 600_000 });
    expect(settings.stopGraceMs).toBe(DEFAULT_TURN_SETTINGS.stopGraceMs);
    const defaults = turnSettingsFrom(resolveConfig({ env: {} }));
    for (const key of ["outputMode", "toolMode", "correctiveRetries", "toolBlockDedup"] as const)
      expect(defaults[key]).toBe(DEFAULT_TURN_SETTINGS[key]);
  });

  it.each([
    ["maxInflight", "maxInFlight"],
    ["PROXY_MAX_IN_FLIGHT", "maxInFlight"],
    ["tool_mode", "toolMode"],
    ["inspectr", "inspector"],
  ])("refuses an unknown config-file key like an unknown flag (%s → %s)", (key, meant) => {
    const resolve = () => resolveConfig({ env: {}, file: { [key]: 1 }, fileName: "gateway.json" });
    expect(resolve).toThrow(ConfigError);
    expect(resolve).toThrow(`gateway.json: unknown key '${key}' (did you mean '${meant}'?)`);
  });

  it("refuses an unknown config-file key with nothing close without guessing", () => {
    expect(() => resolveConfig({ env: {}, file: { colour: "blue" } })).toThrow(
      /^the config file: unknown key 'colour'; the keys are listed in docs\/configuration\.md/,
    );
  });

  it("warns of PROXY_* variables that are no setting, naming the one meant, and only of those", () => {
    const warnings: UnknownSetting[] = [];
    resolveConfig({
      env: {
        PROXY_TOOLMODE: "native",
        PROXY_MAX_INFLIGHT: "3",
        PROXY_SOMETHING_ELSE: "x",
        // Read: an option, a legacy alias, a key's keyEnv, a route's apiKeyEnv, a passed variable.
        PROXY_TOOL_MODE: "auto",
        PROXY_ENABLE_PARALLEL_TOOL_CALLS: "true",
        PROXY_KEY_ALICE: "alice-secret-key",
        PROXY_UPSTREAM_KEY: "upstream-key",
        PROXY_PASSED: "1",
        PROXY_CODEX_PASS_ENV: "PROXY_PASSED",
        OTHER_TOOLMODE: "x",
      },
      file: {
        apiKeys: [{ name: "alice", keyEnv: "PROXY_KEY_ALICE" }],
        models: [
          {
            id: "local",
            backend: "openai-compatible",
            baseUrl: "http://127.0.0.1:1/v1",
            apiKeyEnv: "PROXY_UPSTREAM_KEY",
          },
        ],
      },
      warn: (w) => warnings.push(w),
    });
    expect(warnings.map((w) => [w.name, w.meant])).toEqual([
      ["PROXY_MAX_INFLIGHT", "PROXY_MAX_IN_FLIGHT"],
      ["PROXY_SOMETHING_ELSE", undefined],
      ["PROXY_TOOLMODE", "PROXY_TOOL_MODE"],
    ]);
    expect(warnings[2]?.message).toBe(
      "PROXY_TOOLMODE is not a setting of the gateway and is ignored: did you mean PROXY_TOOL_MODE?",
    );
  });

  it.each(["true", "TRUE", "1", "yes", "On"])("reads %s as true", (spelling) => {
    expect(
      resolveConfig({ env: { PROXY_INSPECTOR_BODIES: "off", PROXY_METRICS_AUTH: spelling } }).metricsAuth,
    ).toBe(true);
  });

  it.each(["false", "False", "0", "no", "OFF"])("reads %s as false", (spelling) => {
    expect(resolveConfig({ env: { PROXY_STOP_AFTER_TOOLS: spelling } }).stopAfterTools).toBe(false);
  });

  it("never repeats a secret's value in its error", () => {
    expect(() => resolveConfig({ env: { PROXY_ADMIN_KEY: "short-secret" } })).toThrow(/PROXY_ADMIN_KEY/);
    expect(() => resolveConfig({ env: { PROXY_ADMIN_KEY: "short-secret" } })).not.toThrow(/short-secret/);
    const otlp = { OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%zzsecret" };
    expect(() => resolveConfig({ env: otlp })).toThrow(
      /OTEL_EXPORTER_OTLP_HEADERS: a value is not URL-encoded correctly/,
    );
    expect(() => resolveConfig({ env: otlp })).not.toThrow(/zzsecret/);
    const keys = { PROXY_API_KEYS: '[{"name":"a","key":"sk-secret-value"' };
    expect(() => resolveConfig({ env: keys })).toThrow(/^PROXY_API_KEYS: expected JSON$/);
  });

  it("documents the boolean spellings and the key minimums", () => {
    const doc = readFileSync(new URL("../../../docs/configuration.md", import.meta.url), "utf8");
    for (const spelling of ["`true`", "`1`", "`yes`", "`on`", "`false`", "`0`", "`no`", "`off`"])
      expect(doc).toContain(spelling);
    expect(doc).toMatch(/each at least 8 characters/);
    expect(doc).toMatch(/at least 16 characters/);
    expect(helpText()).toContain("A <bool> is true, 1, yes, on or false, 0, no, off, in any case");
  });
});

describe("replica settings", () => {
  const PG = "postgres://gateway@db:5432/gateway";
  const SECRET = "s3cret-shared-by-replicas";
  const problem = (env: Record<string, string>) => {
    try {
      resolveConfig({ env });
      return undefined;
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
  };

  it("are all-or-nothing and need PostgreSQL, each in one line; model routes take them", () => {
    expect(problem({ PROXY_REPLICA_SECRET: SECRET })).toMatch(
      /PROXY_REPLICA_SECRET is set but PROXY_REPLICA_URL is not/,
    );
    expect(problem({ PROXY_REPLICA_URL: "http://10.0.0.5:8787", PROXY_STORE: PG })).toMatch(
      /PROXY_REPLICA_URL is set but PROXY_REPLICA_SECRET is not/,
    );
    expect(problem({ PROXY_REPLICA_URL: "http://10.0.0.5:8787", PROXY_REPLICA_SECRET: SECRET })).toMatch(
      /PROXY_REPLICA_URL needs the store the replicas share: PROXY_STORE=postgres/,
    );
    expect(problem({ PROXY_REPLICA_URL: "10.0.0.5:8787" })).toMatch(/PROXY_REPLICA_URL.*base URL/);
    const short = problem({
      PROXY_REPLICA_URL: "http://a:1",
      PROXY_REPLICA_SECRET: "short",
      PROXY_STORE: PG,
    });
    expect(short).toMatch(/PROXY_REPLICA_SECRET.*at least 16 characters/);
    expect(short).not.toContain("short");
    expect(
      resolveConfig({
        env: { PROXY_REPLICA_URL: "http://10.0.0.5:8787", PROXY_REPLICA_SECRET: SECRET, PROXY_STORE: PG },
      }),
    ).toMatchObject({ replicaUrl: "http://10.0.0.5:8787", replicaTimeoutMs: 5000 });
    // Turns on codex routes are shared; whether any route runs on codex is known at start.
    const models = JSON.stringify([{ id: "m", backend: "codex", reasoningEffort: "high" }]);
    expect(
      resolveConfig({
        env: {
          PROXY_REPLICA_URL: "http://10.0.0.5:8787",
          PROXY_REPLICA_SECRET: SECRET,
          PROXY_STORE: PG,
          PROXY_MODELS: models,
        },
      }),
    ).toMatchObject({ replicaUrl: "http://10.0.0.5:8787", models: [{ id: "m", backend: "codex" }] });
  });
});
