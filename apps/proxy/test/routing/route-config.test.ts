import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, resolveConfig } from "../../src/index.js";

const upstream = { id: "qwen3", backend: "openai-compatible", baseUrl: "http://localhost:11434/v1" };

describe("model routes in the configuration", () => {
  it("default: no routes (everything goes to codex)", () => {
    expect(resolveConfig({ env: {} }).models).toEqual([]);
  });

  it("reads `models` from the config file and PROXY_MODELS (JSON), env over file", () => {
    const fromFile = resolveConfig({ env: {}, file: { models: [upstream] } });
    expect(fromFile.models).toEqual([upstream]);
    const fromEnv = resolveConfig({
      env: { PROXY_MODELS: JSON.stringify([{ id: "gpt-5.5", backend: "codex", aliases: ["fast"] }]) },
      file: { models: [upstream] },
    });
    expect(fromEnv.models).toEqual([{ id: "gpt-5.5", backend: "codex", aliases: ["fast"] }]);
  });

  it.each([
    ["missing baseUrl", [{ id: "x", backend: "openai-compatible" }], /models\[0\]\.baseUrl/],
    [
      "a baseUrl that is not http(s)",
      [{ ...upstream, baseUrl: "localhost:11434" }],
      /models\[0\]\.baseUrl: must be an http/,
    ],
    ["an unknown backend", [{ id: "x", backend: "anthropic" }], /models\[0\]\.backend/],
    ["a typo'd key", [{ ...upstream, baseURL: "http://x/v1" }], /models\[0\]\.baseURL/],
    [
      "a codex route with a baseUrl",
      [{ id: "x", backend: "codex", baseUrl: "http://x/v1" }],
      /models\[0\]\.baseUrl/,
    ],
    ["a missing id", [{ backend: "codex" }], /models\[0\]\.id/],
    ["maxInFlight 0", [{ ...upstream, maxInFlight: 0 }], /models\[0\]\.maxInFlight/],
    [
      "toolMode native on a codex route",
      [{ id: "x", backend: "codex", toolMode: "native" }],
      /models\[0\]\.toolMode/,
    ],
    [
      "an unknown reasoning effort",
      [{ ...upstream, reasoningEffort: "max" }],
      /models\[0\]\.reasoningEffort/,
    ],
    [
      "a name used twice",
      [upstream, { id: "other", backend: "codex", aliases: ["qwen3"] }],
      /models\[1\]\.aliases\[0\]: .*'qwen3' is already used by models\[0\]\.id/,
    ],
    [
      "an apiKeyEnv that is not set",
      [{ ...upstream, apiKeyEnv: "NOT_SET_ANYWHERE" }],
      /models\[0\]\.apiKeyEnv: .*NOT_SET_ANYWHERE is not set/,
    ],
    ["a list that is not a list", { id: "x" }, /models/],
    [
      "a fallback no route is named",
      [{ id: "x", backend: "codex", fallbacks: ["nowhere"] }],
      /models\[0\]\.fallbacks\[0\]: no route is named 'nowhere'/,
    ],
    [
      "a route falling back to itself (by alias)",
      [upstream, { id: "x", backend: "codex", aliases: ["y"], fallbacks: ["qwen3", "y"] }],
      /models\[1\]\.fallbacks\[1\]: 'y' is this route itself/,
    ],
    ["firstByteTimeoutMs 0", [{ ...upstream, firstByteTimeoutMs: 0 }], /models\[0\]\.firstByteTimeoutMs/],
  ])("stops startup on %s, naming the entry and field", (_, models, message) => {
    const run = () => resolveConfig({ env: { PROXY_MODELS: JSON.stringify(models) } });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(/PROXY_MODELS/);
    expect(run).toThrow(message);
  });

  it("accepts fallbacks naming other routes by id or alias, a first-byte timeout and images: false", () => {
    const models = [
      { id: "gpt-5.5", backend: "codex", fallbacks: ["local", "qwen3"], firstByteTimeoutMs: 20_000 },
      { ...upstream, aliases: ["local"], images: false },
    ];
    expect(resolveConfig({ env: { PROXY_MODELS: JSON.stringify(models) } }).models).toEqual(models);
  });

  it("accepts toolMode native on an openai-compatible route", () => {
    const models = [{ ...upstream, toolMode: "native" }];
    expect(resolveConfig({ env: { PROXY_MODELS: JSON.stringify(models) } }).models).toEqual(models);
  });

  it("accepts outputMode on any route and names a bad one", () => {
    const models = [
      { ...upstream, outputMode: "obsidian-xml" },
      { id: "gpt-5.5", backend: "codex", outputMode: "openai-json" },
    ];
    expect(resolveConfig({ env: { PROXY_MODELS: JSON.stringify(models) } }).models).toEqual(models);
    const bad = [{ ...upstream, outputMode: "xml" }];
    expect(() => resolveConfig({ env: { PROXY_MODELS: JSON.stringify(bad) } })).toThrow(
      /models\[0\]\.outputMode/,
    );
  });

  it("names PROXY_MODELS when it is not JSON", () => {
    expect(() => resolveConfig({ env: { PROXY_MODELS: "[{id: x}]" } })).toThrow(
      /PROXY_MODELS: expected JSON/,
    );
  });

  it("names the config file key when the bad list came from the file", () => {
    expect(() =>
      resolveConfig({ env: {}, file: { models: [{ id: "x", backend: "openai-compatible" }] } }),
    ).toThrow(/config file key 'models'.*models\[0\]\.baseUrl/);
  });
});

describe("docs/backends.md examples", () => {
  const doc = readFileSync(new URL("../../../../docs/backends.md", import.meta.url), "utf8");
  const examples = [...doc.matchAll(/^### (.+)\n[\s\S]*?```json\n([\s\S]*?)```/gm)].map(
    (m) => [m[1]!, m[2]!] as const,
  );

  it("has the llama.cpp, Ollama and vLLM examples", () => {
    expect(examples.map(([title]) => title)).toEqual([
      "llama.cpp (`llama-server`)",
      "Ollama",
      "vLLM, next to codex",
    ]);
  });

  it.each(examples)("the %s example loads and validates", (_, json) => {
    const file = JSON.parse(json) as { models: Array<{ apiKeyEnv?: string }> };
    const env = Object.fromEntries(
      file.models.flatMap((m) => (m.apiKeyEnv ? [[m.apiKeyEnv, "sk-example"]] : [])),
    );
    const config = resolveConfig({ env, file });
    expect(config.models.length).toBe(file.models.length);
    expect(config.models.some((m) => m.backend === "openai-compatible")).toBe(true);
  });

  it("the PROXY_MODELS shell example loads too", () => {
    const json = /PROXY_MODELS='(.+?)'/.exec(doc)?.[1];
    expect(resolveConfig({ env: { PROXY_MODELS: json } }).models).toHaveLength(1);
  });
});
