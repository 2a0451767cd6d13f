import { describe, expect, it } from "vitest";
import { ConfigError, resolveConfig } from "../src/index.js";

describe("settings of the earlier codex proxies", () => {
  it.each([
    [{ PROXY_ENABLE_PARALLEL_TOOL_CALLS: "false" }, { parallelToolCalls: false }],
    [{ PROXY_ENABLE_PARALLEL_TOOL_CALLS: "true" }, { parallelToolCalls: true }],
    [{ PROXY_SUPPRESS_TAIL_AFTER_TOOLS: "false" }, { stopAfterTools: false }],
    [{ PROXY_SUPPRESS_TAIL_AFTER_TOOLS: "off", PROXY_STOP_AFTER_TOOLS: "off" }, { stopAfterTools: false }],
  ])("an alias is honoured under its old name (%o)", (env, expected) => {
    expect(resolveConfig({ env })).toMatchObject(expected);
  });

  it("a bad value under an old name is refused like any other", () => {
    expect(() => resolveConfig({ env: { PROXY_ENABLE_PARALLEL_TOOL_CALLS: "sometimes" } })).toThrow(
      ConfigError,
    );
  });

  it("an alias that disagrees with its current name stops startup", () => {
    expect(() =>
      resolveConfig({ env: { PROXY_SUPPRESS_TAIL_AFTER_TOOLS: "true", PROXY_STOP_AFTER_TOOLS: "false" } }),
    ).toThrow(
      /PROXY_SUPPRESS_TAIL_AFTER_TOOLS \(a legacy alias of PROXY_STOP_AFTER_TOOLS\).*set only PROXY_STOP_AFTER_TOOLS/,
    );
  });

  it.each([
    ["PROXY_TOOL_BLOCK_DELIMITER", "\\n---\\n", /own line/],
    ["PROXY_RESPONSES_OUTPUT_MODE", "openai-json", /use PROXY_OUTPUT_MODE/],
    ["PROXY_IGNORE_CLIENT_SYSTEM_PROMPT", "true", /always given to the model/],
    ["PROXY_IGNORE_CLIENT_SYSTEM_PROMPT", "false", /always given to the model/],
  ])("%s=%s stops startup with a message naming what replaces it", (name, value, replacement) => {
    const start = () => resolveConfig({ env: { [name]: value } });
    expect(start).toThrow(ConfigError);
    expect(start).toThrow(new RegExp(`^${name} is no longer supported`));
    expect(start).toThrow(replacement);
  });
});
