import { describe, expect, it } from "vitest";
import { apiKeysOf } from "../../src/config/api-keys.js";
import { resolveConfig } from "../../src/config/config.js";

const withKeys = (apiKeys: unknown, env: Record<string, string> = {}) =>
  resolveConfig({ env, file: { apiKeys } });

describe("named API keys in the configuration", () => {
  it("reads a key from its keyEnv variable, and keeps names and limits", () => {
    const config = withKeys(
      [{ name: "alice", keyEnv: "ALICE_KEY", limits: { rpm: 5 } }, "sk-plain-0123456789"],
      { ALICE_KEY: "sk-alice-0123456789" },
    );
    expect(apiKeysOf(config.apiKeys)).toEqual([
      { key: "sk-alice-0123456789", name: "alice", limits: { rpm: 5 } },
      { key: "sk-plain-0123456789" },
    ]);
  });

  it("takes PROXY_API_KEYS as a JSON list too", () => {
    const config = resolveConfig({
      env: { PROXY_API_KEYS: '[{"name":"ci","key":"sk-ci-0123456789","limits":{"tokensPerDay":1000}}]' },
    });
    expect(apiKeysOf(config.apiKeys)).toEqual([
      { key: "sk-ci-0123456789", name: "ci", limits: { tokensPerDay: 1000 } },
    ]);
  });

  it("refuses what would silently do something else, naming the entry", () => {
    expect(() => withKeys([{ name: "a", keyEnv: "UNSET_KEY_VAR" }])).toThrow(
      /apiKeys\[0\]\.keyEnv: the environment variable UNSET_KEY_VAR is not set/,
    );
    expect(() => withKeys([{ name: "a" }])).toThrow(/apiKeys\[0\]: give exactly one of "key" and "keyEnv"/);
    expect(() =>
      withKeys([
        { name: "a", key: "sk-a-0123456789" },
        { name: "a", key: "sk-b-0123456789" },
      ]),
    ).toThrow(/apiKeys\[1\]\.name: the name 'a' is already used/);
    expect(() => withKeys([{ name: "a", key: "sk-a-0123456789", limit: { rpm: 1 } }])).toThrow(
      /config file key 'apiKeys'.*apiKeys\[0\]/,
    );
    expect(() => withKeys([{ name: "a", key: "sk-a-0123456789", limits: { rpm: 0 } }])).toThrow(/apiKeys/);
    expect(() => withKeys(["short"])).toThrow(/apiKeys/);
  });
});
