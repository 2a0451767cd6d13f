/** The hexagon, enforced: core is the pure centre, adapters never see each other, only apps compose. */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "core-no-node-builtins",
      comment: "packages/core is pure: no node:* / Node core modules (use injected ports instead).",
      severity: "error",
      from: { path: "^packages/core/src" },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "core-no-http-or-adapters",
      comment: "packages/core imports no hono and no adapter or app package.",
      severity: "error",
      from: { path: "^packages/core/src" },
      to: {
        path: "(^|/)node_modules/(hono|@hono)/|^packages/adapter-|^apps/|@proxy/adapter-|@proxy/gateway",
      },
    },
    {
      name: "core-only-allowed-deps",
      comment:
        "packages/core may depend on effect, jsonrepair, ajv, re2js, gpt-tokenizer (pure libraries) and itself only; its test kit (src/testing) may also use vitest.",
      severity: "error",
      from: { path: "^packages/core/src", pathNot: "^packages/core/src/testing/" },
      to: {
        dependencyTypes: ["npm", "npm-dev", "npm-optional", "npm-peer", "npm-no-pkg", "npm-unknown"],
        pathNot:
          "node_modules/(effect|jsonrepair|ajv|re2js|gpt-tokenizer|fast-uri|fast-deep-equal|json-schema-traverse|require-from-string)/",
      },
    },
    {
      name: "adapters-do-not-import-each-other",
      severity: "error",
      from: { path: "^packages/adapter-([^/]+)/src" },
      to: { path: "^packages/adapter-|@proxy/adapter-", pathNot: "^packages/adapter-$1/" },
    },
    {
      name: "http-surface-imports-core-only",
      comment:
        "packages/http-surface is the kit every HTTP surface stands on: it may use core (and hono), never an adapter or app.",
      severity: "error",
      from: { path: "^packages/http-surface/src" },
      to: { path: "^packages/adapter-|@proxy/adapter-|^apps/|@proxy/gateway" },
    },
    {
      name: "core-does-not-import-the-kit",
      comment: "core stays below the HTTP kit.",
      severity: "error",
      from: { path: "^packages/core/src" },
      to: { path: "^packages/http-surface|@proxy/http-surface" },
    },
    {
      name: "packages-never-import-apps",
      severity: "error",
      from: { path: "^packages/" },
      to: { path: "^apps/|@proxy/gateway" },
    },
    {
      name: "no-unresolvable",
      severity: "error",
      from: { path: "^packages/core/src" },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "(^|/)(dist|test|node_modules)/|\\.test\\.ts$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.test.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["@proxy/source", "import", "types", "default"],
      mainFields: ["module", "main", "types"],
      extensions: [".ts", ".js", ".mjs", ".json"],
    },
  },
};
