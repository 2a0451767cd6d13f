import { execFileSync, spawn } from "node:child_process";
import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startScriptedUpstream } from "@proxy/adapter-openai-compatible/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call } from "./support/tool-calling-suite.js";
import { completion } from "./support/upstream.js";

/**
 * `@proxy/ai-sdk` and `@proxy/core` as a user gets them: both packed tarballs installed with npm in
 * an empty directory outside the repository, next to `ai` 7, its OpenAI-compatible provider and
 * vitest 4, and the docs' example (examples/weather.ts, shown verbatim in docs/ai-sdk.md) run there
 * by Node itself. Needs the built packages (`npm test` builds first) and the npm registry.
 */
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const pack = (dir: string, pkg: string) =>
  execFileSync("pnpm", ["pack", "--pack-destination", dir], { cwd: here(pkg), encoding: "utf8" })
    .trim()
    .split("\n")
    .at(-1) as string;

describe("the packed middleware and core, installed beside ai 7 and vitest 4", { timeout: 300_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "ai-sdk-install-"));
    const tarballs = [pack(dir, "../../core"), pack(dir, "..")];
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    execFileSync(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        ...tarballs,
        "ai@7",
        "@ai-sdk/openai-compatible@3",
        "vitest@4",
      ],
      { cwd: dir, stdio: ["ignore", "ignore", "pipe"], timeout: 240_000 },
    );
    await copyFile(here("../examples/weather.ts"), join(dir, "weather.ts"));
  }, 300_000);
  afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

  it("runs the docs' example against an OpenAI-compatible text server", async () => {
    const upstream = await startScriptedUpstream((_request, index) =>
      index === 0
        ? completion(call("weather", { city: "Lisbon" }))
        : completion("Sunny and 21 °C in Lisbon."),
    );
    try {
      const child = spawn(process.execPath, ["weather.ts"], {
        cwd: dir,
        env: { ...process.env, OPENAI_BASE_URL: upstream.url, NODE_NO_WARNINGS: "1" },
      });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
      });
      const code = await new Promise((resolve) => child.on("close", resolve));
      expect([code, out]).toEqual([
        0,
        'tool-calls [ \'weather {"city":"Lisbon"}\' ]\nstop []\nSunny and 21 °C in Lisbon.\n',
      ]);
      expect(upstream.requests).toHaveLength(2);
    } finally {
      await upstream.close();
    }
  });
});
