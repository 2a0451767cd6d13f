import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
// The package's `exports` hide its bin: it sits in this package's node_modules (a pnpm link).
const depcruise = fileURLToPath(
  new URL("../node_modules/dependency-cruiser/bin/dependency-cruiser.mjs", import.meta.url),
);

/** Runs the repository's own rules (.dependency-cruiser.cjs) over `dir` exactly as `pnpm purity` does. */
const cruise = (dir: string, targets = ["packages"]) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [depcruise, ...targets, "--config", join(root, ".dependency-cruiser.cjs"), "--output-type", "err"],
      { cwd: dir },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
  });

/** An installed npm package in the fixture's node_modules (what `import name` resolves to). */
const npmPackage = (name: string): Record<string, string> => ({
  [`node_modules/${name}/package.json`]: JSON.stringify({ name, version: "1.0.0", main: "index.js" }),
  [`node_modules/${name}/index.js`]: "export const x = 1;\n",
});

/** A workspace package: its manifest lists `deps` as dependencies. */
const manifest = (dir: string, deps: string[], devDeps: string[] = []) => ({
  [`packages/${dir}/package.json`]: JSON.stringify({
    name: `@proxy/${dir}`,
    dependencies: Object.fromEntries(deps.map((d) => [d, "1.0.0"])),
    devDependencies: Object.fromEntries(devDeps.map((d) => [d, "1.0.0"])),
  }),
});

/** The rule names a run reported, in order of first appearance. */
const rules = (output: string) => [...new Set([...output.matchAll(/error ([a-z-]+):/g)].map((m) => m[1]))];

describe("the hexagon is enforced, not promised", { timeout: 60_000 }, () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  const fixture = async (files: Record<string, string>) => {
    const dir = await mkdtemp(join(tmpdir(), "hexagon-"));
    dirs.push(dir);
    await copyFile(join(root, "tsconfig.base.json"), join(dir, "tsconfig.base.json"));
    await writeFile(
      join(dir, "tsconfig.test.json"),
      JSON.stringify({ extends: "./tsconfig.base.json", include: ["packages/**/*.ts"] }),
    );
    const all = {
      ...manifest("core", ["effect"]),
      ...npmPackage("effect"),
      "packages/core/src/x.ts": "export const x = 1;\n",
      ...files,
    };
    for (const [path, text] of Object.entries(all)) {
      await mkdir(join(dir, path, ".."), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    return dir;
  };
  /** Cruises a fixture and returns the rules it broke. */
  const broken = async (files: Record<string, string>) => {
    const result = await cruise(await fixture(files));
    expect(result.code === 0).toBe(rules(result.output).length === 0);
    return rules(result.output);
  };

  it("passes the repository itself", async () => {
    const result = await cruise(root, ["packages", "apps"]);
    expect(result.output).toContain("no dependency violations found");
    expect(result.code).toBe(0);
  });

  it("passes a core that imports itself and a listed, allowed npm package", async () => {
    expect(
      await broken({
        "packages/core/src/index.ts": 'export { x } from "./x.js";\nexport { x as y } from "effect";\n',
      }),
    ).toEqual([]);
  });

  it("fails when packages/core/src imports node:fs", async () => {
    expect(
      await broken({
        "packages/core/src/index.ts":
          'import { readFileSync } from "node:fs";\nexport const r = readFileSync;\n',
      }),
    ).toEqual(["core-no-node-builtins"]);
  });

  it("fails when core imports hono, even listed in its package.json", async () => {
    expect(
      await broken({
        ...manifest("core", ["effect", "hono"]),
        ...npmPackage("hono"),
        "packages/core/src/index.ts": 'import "hono";\nexport {};\n',
      }),
    ).toContain("core-no-http-or-adapters");
  });

  it("fails when core imports an adapter", async () => {
    expect(
      await broken({
        "packages/core/src/index.ts": 'import "../../adapter-http-chat/src/index.js";\nexport {};\n',
        "packages/adapter-http-chat/src/index.ts": "export {};\n",
      }),
    ).toEqual(["core-no-http-or-adapters"]);
  });

  it("fails when a package imports an npm package its package.json does not list", async () => {
    // jsonrepair is one of core's allowed libraries, but only once core lists it.
    expect(
      await broken({
        ...npmPackage("jsonrepair"),
        "packages/core/src/index.ts": 'import "jsonrepair";\nexport {};\n',
      }),
    ).toEqual(["packages-list-what-they-import"]);
  });

  it("fails when core imports a listed npm package outside its allowed pure libraries", async () => {
    expect(
      await broken({
        ...manifest("core", ["effect", "left-pad"]),
        ...npmPackage("left-pad"),
        "packages/core/src/index.ts": 'import "left-pad";\nexport {};\n',
      }),
    ).toEqual(["core-only-allowed-deps"]);
  });

  it("fails when shipped code imports a devDependency", async () => {
    expect(
      await broken({
        ...manifest("adapter-store-sql", [], ["vitest"]),
        ...npmPackage("vitest"),
        "packages/adapter-store-sql/src/index.ts": 'import "vitest";\nexport {};\n',
      }),
    ).toEqual(["production-code-uses-no-dev-dependency"]);
  });

  it("fails when an adapter imports another adapter", async () => {
    expect(
      await broken({
        "packages/adapter-http-chat/src/index.ts":
          'import "../../adapter-http-responses/src/index.js";\nexport {};\n',
        "packages/adapter-http-responses/src/index.ts": "export {};\n",
      }),
    ).toEqual(["adapters-do-not-import-each-other"]);
  });

  it("fails when the kit imports anything but core, effect and hono", async () => {
    expect(
      await broken({
        ...manifest("http-surface", ["effect", "hono", "pino"]),
        ...npmPackage("hono"),
        ...npmPackage("pino"),
        "packages/http-surface/src/index.ts":
          'import "../../core/src/x.js";\nimport "hono";\nimport "effect";\nimport "pino";\nimport "node:net";\nexport {};\n',
      }),
    ).toEqual(["http-surface-imports-core-only"]);
  });

  it("fails when the AI SDK middleware imports anything but core and ai", async () => {
    expect(
      await broken({
        ...manifest("ai-sdk", ["ai", "hono"]),
        ...npmPackage("ai"),
        ...npmPackage("hono"),
        "packages/ai-sdk/src/index.ts":
          'import "../../core/src/x.js";\nimport "ai";\nimport "hono";\nimport "node:fs";\nexport {};\n',
      }),
    ).toEqual(["ai-sdk-imports-core-and-ai-only"]);
  });

  // The packages carved out of apps/proxy: their rule is read from their real package.json.
  describe.each([
    ["adapter-image-fetcher", true],
    ["routing", false],
    ["inspector", true],
  ])("packages/%s", (dir, builtins) => {
    const at = `packages/${dir}/src/index.ts`;
    it("passes its own files and a workspace package it lists", async () => {
      expect(
        await broken({
          [at]: 'import "./y.js";\nimport "../../core/src/x.js";\nexport {};\n',
          [`packages/${dir}/src/y.ts`]: "export {};\n",
        }),
      ).toEqual([]);
    });

    it(`${builtins ? "may" : "may not"} import Node's builtins`, async () => {
      expect(await broken({ [at]: 'import "node:net";\nexport {};\n' })).toEqual(
        builtins ? [] : [`${dir}-imports-what-it-lists`],
      );
    });

    it("fails when it imports a workspace package its package.json does not list", async () => {
      expect(
        await broken({
          [at]: 'import "../../adapter-http-chat/src/index.js";\nexport {};\n',
          "packages/adapter-http-chat/src/index.ts": "export {};\n",
        }),
      ).toContain(`${dir}-imports-what-it-lists`);
    });

    it("fails when it imports an npm package its package.json does not list, even one the fixture lists", async () => {
      expect(
        await broken({
          ...manifest(dir, ["left-pad"]),
          ...npmPackage("left-pad"),
          [at]: 'import "left-pad";\nexport {};\n',
        }),
      ).toEqual([`${dir}-imports-what-it-lists`]);
    });

    it("fails when it imports the app", async () => {
      const found = await broken({
        [at]: 'import "../../../apps/proxy/src/x.js";\nexport {};\n',
        "apps/proxy/src/x.ts": "export {};\n",
      });
      expect(found.sort()).toEqual([`${dir}-imports-what-it-lists`, "packages-never-import-apps"].sort());
    });
  });

  it("fails on an import cycle between files, type imports included", async () => {
    expect(
      await broken({
        "packages/core/src/index.ts":
          'export type { B } from "./b.js";\nexport interface A { b?: import("./b.js").B }\n',
        "packages/core/src/b.ts": 'import type { A } from "./index.js";\nexport interface B { a?: A }\n',
      }),
    ).toEqual(["no-circular"]);
  });
});
