import { defineConfig } from "tsup";

/**
 * The bench runs built code, as users do: its own sources are transpiled file by file into dist/
 * (same tree, so the `new URL("./x", import.meta.url)` paths hold), the workspace packages resolve to
 * their own dist, and the two package-level benches it runs (the core's parser bench, the codex
 * adapter's turn bench) are bundled with esbuild like any package build.
 */
export default defineConfig([
  {
    entry: ["src/**/*.ts"],
    outDir: "dist",
    format: ["esm"],
    target: "node24",
    platform: "node",
    bundle: false,
    removeNodeProtocol: false,
    clean: false,
    dts: false,
  },
  {
    entry: {
      "package-bench/parser-bench": "../../packages/core/bench/parser-bench.ts",
      "package-bench/turn-bench": "../../packages/adapter-codex-appserver/bench/turn-bench.ts",
    },
    outDir: "dist",
    format: ["esm"],
    target: "node24",
    platform: "node",
    bundle: true,
    removeNodeProtocol: false,
    clean: false,
    dts: false,
  },
]);
