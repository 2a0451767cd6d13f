import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { apiKeysOf } from "../../src/config/api-keys.js";
import { resolveConfig } from "../../src/config/config.js";

const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));

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

describe("one secret under two entries", () => {
  const SECRET = "sk-shared-0123456789";

  it("is refused, naming both entries and never the secret", () => {
    expect(() =>
      withKeys(
        [
          { name: "alice", key: SECRET },
          { name: "bob", keyEnv: "BOB_KEY" },
        ],
        { BOB_KEY: SECRET },
      ),
    ).toThrow("apiKeys[1] ('bob') has the same key as apiKeys[0] ('alice'); give each entry its own key");
    expect(() => withKeys(["sk-other-0123456789", SECRET, { name: "carol", key: SECRET }])).toThrow(
      "apiKeys[2] ('carol') has the same key as apiKeys[1]; give each entry its own key",
    );
  });

  it("stops the gateway at start with one line on stderr and exit code 2", () => {
    const run = spawnSync(
      process.execPath,
      ["--conditions=@proxy/source", "--import", createRequire(import.meta.url).resolve("tsx"), MAIN],
      {
        env: {
          ...process.env,
          PORT: "0",
          PROXY_STORE: "none",
          PROXY_API_KEYS: JSON.stringify([
            { name: "alice", key: SECRET },
            { name: "bob", key: SECRET },
          ]),
        },
        encoding: "utf8",
        timeout: 30_000,
      },
    );
    expect(run.status).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim().split("\n")).toEqual([
      "codex-tool-gateway: Invalid configuration value for PROXY_API_KEYS: apiKeys[1] ('bob') has the same key as apiKeys[0] ('alice'); give each entry its own key",
    ]);
    expect(run.stderr).not.toContain(SECRET);
  });
});
