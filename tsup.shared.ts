import { defineConfig, type Options } from "tsup";

/**
 * The one tsup configuration every package builds with. `removeNodeProtocol: false` keeps the
 * `node:` prefix: tsup 9 strips it by default, which breaks the builtins that exist only under
 * `node:` (`node:sqlite`, `node:test`, `node:sea`) in the built code people run.
 */
export const packageBuild = (entry: string[] | Record<string, string>, overrides: Options = {}) =>
  defineConfig({
    entry,
    format: ["esm"],
    target: "node22",
    platform: "node",
    sourcemap: true,
    clean: false, // the build script empties dist (tsup would leave tsc's .tsbuildinfo behind)
    dts: false,
    splitting: true,
    removeNodeProtocol: false,
    ...overrides,
  });
