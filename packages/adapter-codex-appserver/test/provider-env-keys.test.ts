import { appendFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createCodexBackend } from "../src/index.js";
import { providerEnvKeysOf, readProviderEnvKeys } from "../src/sealing/provider-env-keys.js";
import { makeCodexHome, startScriptedModelProvider } from "../src/testing/index.js";
import { collect, realEnv, request, textOf } from "./helpers.js";

describe("the env_key variables codex's config.toml names", () => {
  it("takes the active provider's and every profile's provider's env_key, nothing else", () => {
    expect(
      providerEnvKeysOf({
        model_provider: "corp",
        model_providers: {
          corp: { env_key: "CORP_KEY" },
          lab: { env_key: "LAB_KEY" },
          unused: { env_key: "UNUSED_KEY" },
          keyless: { base_url: "http://x" },
          odd: { env_key: "not a name; rm -rf" },
        },
        profiles: {
          fast: { model_provider: "lab" },
          local: { model_provider: "keyless" },
          bad: { model_provider: "odd" },
        },
      }),
    ).toEqual(["CORP_KEY", "LAB_KEY"]);
    expect(providerEnvKeysOf({})).toEqual([]);
  });

  it("reads $CODEX_HOME/config.toml; no file is no keys, a broken file is reported", async () => {
    const home = await makeCodexHome("http://127.0.0.1:9/v1");
    try {
      const problems: string[] = [];
      const report = (path: string) => void problems.push(path);
      expect(await readProviderEnvKeys({ CODEX_HOME: join(home.path, "nowhere") }, report)).toEqual([]);
      await appendFile(join(home.path, "config.toml"), 'env_key = "MY_PROVIDER_KEY"\n');
      expect(await readProviderEnvKeys({ CODEX_HOME: home.path }, report)).toEqual(["MY_PROVIDER_KEY"]);
      await writeFile(join(home.path, "config.toml"), "model_provider = [unclosed\n");
      expect(await readProviderEnvKeys({ CODEX_HOME: home.path }, report)).toEqual([]);
      expect(problems).toEqual([join(home.path, "config.toml")]);
    } finally {
      await home.cleanup();
    }
  });
});

describe("a custom provider with env_key, through the real codex binary", { timeout: 60_000 }, () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  const start = async (env: Record<string, string>) => {
    const provider = await startScriptedModelProvider({ text: "keyed hello" });
    const home = await makeCodexHome(provider.url);
    await appendFile(join(home.path, "config.toml"), 'env_key = "MY_PROVIDER_KEY"\n');
    const backend = createCodexBackend({ env: { ...realEnv(home.path), ...env } });
    cleanups.push(
      () => provider.close(),
      () => home.cleanup(),
      () => backend.close(),
    );
    return { provider, backend };
  };

  it("passes the variable without a pass-through setting: codex authenticates with it", async () => {
    const { provider, backend } = await start({ MY_PROVIDER_KEY: "sk-custom" });
    const events = await collect(backend.stream(request(), { signal: new AbortController().signal }));
    expect(textOf(events)).toBe("keyed hello");
    expect(provider.requests.map((r) => r.headers.authorization)).toEqual(["Bearer sk-custom"]);
  });

  it("when the variable is not set, the error names it and says how to pass it", async () => {
    const { provider, backend } = await start({});
    // The failure arrives as the stream's error event or as the error the stream throws.
    const failure = await collect(backend.stream(request(), { signal: new AbortController().signal })).then(
      (events) => events.flatMap((e) => (e.type === "error" ? [e.error] : [])).at(0),
      (error: unknown) => error,
    );
    expect(failure instanceof Error && failure.message).toMatch(
      /Missing environment variable: `MY_PROVIDER_KEY`\..*Set MY_PROVIDER_KEY in the gateway's environment.*PROXY_CODEX_PASS_ENV/,
    );
    expect(provider.requests).toHaveLength(0);
  });
});
