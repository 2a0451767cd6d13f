import { builtinModules } from "node:module";
import type { Options } from "tsup";
import { packageBuild } from "../../tsup.shared.js";

/** Left to Node at run time: the tokenizer's rank table (required lazily by path) and pg's optional native binding. */
const RUNTIME_IMPORTS = /^(gpt-tokenizer|pg-native)(\/|$)/;

const BANNER = [
  'import { createRequire as __createRequire } from "node:module";',
  "const require = __createRequire(import.meta.url);",
  'globalThis.__bundlerPathsOverrides ??= { get "thread-stream-worker"() { return __createRequire(require.resolve("pino")).resolve("thread-stream/lib/worker.js"); } };',
].join("\n");

/** Bundled dependencies that import builtins bare (`"fs"`) import them as `"node:fs"`, like our code. */
const prefixBuiltins: NonNullable<Options["esbuildPlugins"]>[number] = {
  name: "prefix-builtins",
  setup(build) {
    build.onResolve({ filter: /^[a-z_0-9]+(\/[a-z_0-9]+)?$/ }, (args) =>
      builtinModules.includes(args.path) ? { path: `node:${args.path}`, external: true } : undefined,
    );
  },
};

/**
 * What the bin and `node dist/main.js` run (here and in the `npm run package` tarball): one
 * tree-shaken ESM bundle of the gateway, the workspace packages and their pure-JS dependencies
 * (effect, hono, pino, …), so a cold start loads a handful of files instead of several hundred.
 * Dynamic imports (PostgreSQL, the OpenAI-compatible client, tracing) stay separate chunks, loaded
 * when first used.
 */
export const gatewayBundle = packageBuild(
  { cli: "src/cli.ts", main: "src/main.ts" },
  {
    // Whitespace and syntax only: names stay, so stack traces and CPU profiles still name the
    // function; ~30 % less source to parse and to hold (idle RSS −2 MiB with codex, −8 MiB
    // with OpenAI-compatible routes, whose undici chunk is large).
    minifyWhitespace: true,
    minifySyntax: true,
    noExternal: [new RegExp(`^(?!${RUNTIME_IMPORTS.source})`)],
    external: [RUNTIME_IMPORTS],
    esbuildPlugins: [prefixBuiltins],
    esbuildOptions: (o) => {
      o.chunkNames = "bundle-[hash]";
    },
    banner: {
      // Bundled CommonJS (pino, ajv, pg, prom-client, …) calls require(); thread-stream, which
      // runs pino's pretty transport in a worker, finds its worker file by the override pino documents.
      js: BANNER,
    },
  },
);

export default [
  // The library entry (`@proxy/gateway`, imported by tests and the bench): workspace packages and
  // npm dependencies stay imports, so a test sharing @proxy/core with it shares one copy.
  packageBuild(["src/index.ts"]),
  gatewayBundle,
];
