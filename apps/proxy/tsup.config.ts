import { packageBuild } from "../../tsup.shared.js";

/** Left to Node at run time: the tokenizer's rank table (required lazily by path) and pg's optional native binding. */
const RUNTIME_IMPORTS = /^(gpt-tokenizer|pg-native)(\/|$)/;

const BANNER = [
  'import { createRequire as __createRequire } from "node:module";',
  "const require = __createRequire(import.meta.url);",
  'globalThis.__bundlerPathsOverrides ??= { get "thread-stream-worker"() { return __createRequire(require.resolve("pino")).resolve("thread-stream/lib/worker.js"); } };',
].join("\n");

export default [
  // The library entry (`@proxy/gateway`, imported by tests and the bench): workspace packages and
  // npm dependencies stay imports, so a test sharing @proxy/core with it shares one copy.
  packageBuild(["src/index.ts"]),
  // What the bin and `node dist/main.js` run: one tree-shaken ESM bundle of the gateway, the
  // workspace packages and their pure-JS dependencies (effect, hono, pino, …), so a cold start
  // loads a handful of files instead of several hundred. Dynamic imports (PostgreSQL, the
  // OpenAI-compatible client, tracing) stay separate chunks, loaded when first used.
  packageBuild(
    { cli: "src/cli.ts", main: "src/main.ts" },
    {
      target: "node24",
      noExternal: [new RegExp(`^(?!${RUNTIME_IMPORTS.source})`)],
      external: [RUNTIME_IMPORTS],
      esbuildOptions: (o) => {
        o.chunkNames = "bundle-[hash]";
      },
      banner: {
        // Bundled CommonJS (pino, ajv, pg, prom-client, …) calls require(); thread-stream, which
        // runs pino's pretty transport in a worker, finds its worker file by the override pino documents.
        js: BANNER,
      },
    },
  ),
];
