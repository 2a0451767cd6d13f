import { execFileSync } from "node:child_process";
import { lstatSync, readdirSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * `@proxy/core` as a library user gets it: the packed tarball installed with npm in an empty
 * directory outside the repository, next to vitest 4, and the docs' example run there as is.
 * Needs the built package (`npm test` builds first) and the npm registry for its dependencies.
 */
const pkg = fileURLToPath(new URL("..", import.meta.url));
const docs = fileURLToPath(new URL("../../../docs/core.md", import.meta.url));
const npm = (cwd: string, ...args: string[]) =>
  execFileSync("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 240_000,
  });

/** Bytes of the files under `dir` (links not followed). */
const sizeOf = (dir: string): number => {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += sizeOf(path);
    else if (entry.isFile()) total += lstatSync(path).size;
  }
  return total;
};

describe("the packed @proxy/core, installed in an empty project", { timeout: 300_000 }, () => {
  let dir: string;
  let tarball: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "core-install-"));
    // pnpm packs as published: `catalog:` and `workspace:` ranges become versions.
    const packed = execFileSync("pnpm", ["pack", "--pack-destination", dir], { cwd: pkg, encoding: "utf8" });
    tarball = packed.trim().split("\n").at(-1) as string;
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    npm(dir, "install", tarball);
  }, 300_000);
  afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

  it("ships its built code only: no build info, no maps to sources it does not ship", () => {
    const files = execFileSync("tar", ["tzf", tarball], { encoding: "utf8" }).trim().split("\n");
    expect(files.filter((f) => /\.tsbuildinfo$|\.d\.ts\.map$/.test(f))).toEqual([]);
    expect(
      files.every(
        (f) =>
          f === "package/package.json" ||
          f.startsWith("package/dist/") ||
          /package\/(README|LICENSE)/.test(f),
      ),
    ).toBe(true);
  });

  it("takes at most 20 MB with its dependencies, and no effect", () => {
    const modules = join(dir, "node_modules");
    expect(sizeOf(modules) / (1024 * 1024)).toBeLessThan(20);
    expect(readdirSync(modules)).not.toContain("effect");
  });

  it("runs the docs' example as written", async () => {
    const text = await readFile(docs, "utf8");
    const example = /```js example\.mjs\n([\s\S]*?)```/.exec(text)?.[1];
    expect(example).toBeDefined();
    await writeFile(join(dir, "example.mjs"), example as string);
    const out = execFileSync(process.execPath, ["example.mjs"], { cwd: dir, encoding: "utf8" });
    expect(out).toMatch(
      /^manifest: \d+ characters\ntext: Checking the weather. \ncall: get_weather \{"city":"Paris"\}\n$/,
    );
  });

  it("serves the gateway entry beside the library: runTurn from @proxy/core/gateway only", async () => {
    const probe = [
      'import * as library from "@proxy/core";',
      'import * as gateway from "@proxy/core/gateway";',
      "console.log(typeof gateway.runTurn, typeof gateway.backendStream, typeof library.runTurn, typeof library.createSentinelParser);",
      "",
    ].join("\n");
    await writeFile(join(dir, "entries.mjs"), probe);
    const out = execFileSync(process.execPath, ["entries.mjs"], { cwd: dir, encoding: "utf8" });
    expect(out).toBe("function function undefined function\n");
  });

  it("installs beside vitest 4, whose run of the contract suite over the scripted backend passes", async () => {
    // Before: an optional `vitest >=5 <6` peer made this install fail with ERESOLVE.
    npm(dir, "install", "-D", "vitest@4", "gpt-tokenizer@3");
    await writeFile(
      join(dir, "contract.test.mjs"),
      [
        'import { describeTextBackendContract, scriptedContractHarness } from "@proxy/core/testing";',
        'describeTextBackendContract("the scripted backend", async () => scriptedContractHarness());',
        "",
      ].join("\n"),
    );
    const run = execFileSync(
      process.execPath,
      [join(dir, "node_modules", "vitest", "vitest.mjs"), "run", "contract.test.mjs"],
      {
        cwd: dir,
        encoding: "utf8",
        env: { ...process.env, CI: "true", NO_COLOR: "1" },
      },
    );
    expect(run).toMatch(/Tests\s+\d+ passed/);
  });
});
