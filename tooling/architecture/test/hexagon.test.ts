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
const cruise = (dir: string) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    execFile(
      process.execPath,
      [depcruise, "packages", "--config", join(root, ".dependency-cruiser.cjs"), "--output-type", "err"],
      { cwd: dir },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
  });

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
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(dir, path, ".."), { recursive: true });
      await writeFile(join(dir, path), text);
    }
    return dir;
  };

  it("passes a core that imports only itself", async () => {
    const dir = await fixture({
      "packages/core/src/index.ts": 'export { x } from "./x.js";\n',
      "packages/core/src/x.ts": "export const x = 1;\n",
    });
    expect(await cruise(dir)).toMatchObject({ code: 0 });
  });

  it("fails CI when packages/core/src imports node:fs", async () => {
    const dir = await fixture({
      "packages/core/src/index.ts":
        'import { readFileSync } from "node:fs";\nexport const r = readFileSync;\n',
    });
    const result = await cruise(dir);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("core-no-node-builtins");
  });

  it("fails CI when core imports hono or an adapter, or an adapter imports another adapter", async () => {
    const dir = await fixture({
      "packages/core/src/index.ts": 'import "hono";\nimport "../../adapter-http-chat/src/index.js";\n',
      "packages/adapter-http-chat/src/index.ts":
        'import "../../adapter-http-responses/src/index.js";\nexport {};\n',
      "packages/adapter-http-responses/src/index.ts": "export {};\n",
    });
    const result = await cruise(dir);
    expect(result.code).not.toBe(0);
    expect(result.output).toContain("core-no-http-or-adapters");
    expect(result.output).toContain("adapters-do-not-import-each-other");
  });
});
