import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { importedSpecifiers, isUnprefixedBuiltin, packageOf } from "../scripts/bundle-imports.mjs";
import { serverEnv } from "./support.js";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const packages = [
  ...readdirSync(join(root, "packages")).map((d) => join(root, "packages", d)),
  join(root, "apps", "proxy"),
].filter((dir) => existsSync(join(dir, "package.json")));

interface Manifest {
  readonly exports?: Record<string, { readonly types?: string; readonly import?: string }>;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}
const manifestOf = (dir: string): Manifest => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));

const jsFilesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".js"))
    .map((e) => join(e.parentPath, e.name));

describe("every workspace package's build, as Node loads it without the source condition", () => {
  it.each(packages.map((dir) => [relative(root, dir), dir]))("%s", (_name, dir) => {
    const manifest = manifestOf(dir);
    const entries = Object.values(manifest.exports ?? {});
    expect(entries.length).toBeGreaterThan(0);
    // What `exports` promises is in dist.
    const missing = entries
      .flatMap((e) => [e.import, e.types])
      .filter((f) => !f || !existsSync(join(dir, f)));
    expect(missing).toEqual([]);
    // Builtins keep their `node:` prefix; anything else imported is declared.
    const declared = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]);
    const problems = jsFilesUnder(join(dir, "dist")).flatMap((file) =>
      importedSpecifiers(readFileSync(file, "utf8"))
        .filter((spec) => !spec.startsWith(".") && !spec.startsWith("node:"))
        .filter((spec) => isUnprefixedBuiltin(spec) || !declared.has(packageOf(spec)))
        .map((spec) => `${relative(dir, file)}: ${spec}`),
    );
    expect(problems).toEqual([]);
    // And every entry loads with plain node.
    const imports = entries.map(
      (e) => `await import(${JSON.stringify(pathToFileURL(join(dir, e.import ?? "")).href)});`,
    );
    const loaded = spawnSync(process.execPath, ["--input-type=module", "-e", imports.join("\n")], {
      env: serverEnv(),
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(loaded.status, loaded.stderr).toBe(0);
  });
});
