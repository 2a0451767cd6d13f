/**
 * The hexagon, enforced: core is the pure centre, the kit stands on core only, adapters never see
 * each other, only apps compose. npm packages are resolved (not followed) so the rules about them can
 * fire; tooling/architecture/test/hexagon.test.ts shows every rule failing on an injected violation.
 */
const { readFileSync } = require("node:fs");
const { join } = require("node:path");

const NPM = ["npm", "npm-dev", "npm-optional", "npm-peer", "npm-bundled", "npm-no-pkg", "npm-unknown"];
const CORE_DEPS = "effect|jsonrepair|ajv|re2js";

const escapeRegExp = (name) => name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/**
 * The packages carved out of the composition root (routing, the image fetcher, the inspector):
 * their shipped code imports only itself, the workspace packages and npm packages its package.json
 * lists as dependencies, and (where `builtins`) Node's builtins; read from the manifests, so the
 * rule cannot drift from them. Its test kit (src/testing) may also use its devDependencies.
 */
const LISTED_ONLY = [
  { dir: "adapter-image-fetcher", builtins: true },
  { dir: "routing", builtins: false },
  { dir: "inspector", builtins: true },
];
const listedOnly = ({ dir, builtins }) => {
  const manifest = JSON.parse(readFileSync(join(__dirname, "packages", dir, "package.json"), "utf8"));
  const deps = Object.keys(manifest.dependencies ?? {});
  const own = [dir, ...deps.filter((d) => d.startsWith("@proxy/")).map((d) => d.slice("@proxy/".length))];
  const npm = deps.filter((d) => !d.startsWith("@proxy/")).map(escapeRegExp);
  return {
    name: `${dir}-imports-what-it-lists`,
    comment: `packages/${dir} imports only what its package.json lists (${deps.join(", ")})${builtins ? " and Node's builtins" : ", no node:*"}.`,
    severity: "error",
    from: { path: `^packages/${dir}/src`, pathNot: `^packages/${dir}/src/testing/` },
    to: {
      pathNot: [
        `^packages/(${own.join("|")})/src/`,
        ...(npm.length ? [`(^|/)node_modules/(${npm.join("|")})/`] : []),
      ].join("|"),
      ...(builtins ? { dependencyTypesNot: ["core"] } : {}),
    },
  };
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...LISTED_ONLY.map(listedOnly),
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
      comment: `packages/core may depend on the pure libraries ${CORE_DEPS} only; its test kit (src/testing) may also use vitest.`,
      severity: "error",
      from: { path: "^packages/core/src", pathNot: "^packages/core/src/testing/" },
      to: { dependencyTypes: NPM, pathNot: `(^|/)node_modules/(${CORE_DEPS})/` },
    },
    {
      name: "packages-list-what-they-import",
      comment:
        "Every npm package a package imports is listed in its own package.json (a hoisted or transitive package is not a dependency).",
      severity: "error",
      from: { path: "^(packages|apps)/[^/]+/src" },
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"] },
    },
    {
      name: "production-code-uses-no-dev-dependency",
      comment: "Shipped code imports only dependencies; devDependencies are for tests and test kits.",
      severity: "error",
      from: { path: "^packages/[^/]+/src", pathNot: "^packages/[^/]+/src/testing/" },
      to: { dependencyTypes: ["npm-dev"], dependencyTypesNot: ["npm", "npm-peer"] },
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
        "packages/http-surface is the kit every HTTP surface stands on: it imports core, effect (Schema) and hono (and Node's timers), nothing else; its test kit may also use vitest, node and a Node server.",
      severity: "error",
      from: { path: "^packages/http-surface/src", pathNot: "^packages/http-surface/src/testing/" },
      // Node's timers (yielding the event loop while counting a long request's tokens) are the one builtin.
      to: {
        pathNot:
          "^packages/(core|http-surface)/src/|(^|/)node_modules/(effect|hono)/|^(node:)?timers/promises$",
      },
    },
    {
      name: "http-surface-testing-imports-no-adapter",
      comment: "the kit's test kit may use vitest and node, never an adapter or app.",
      severity: "error",
      from: { path: "^packages/http-surface/src/testing/" },
      to: { path: "^packages/adapter-|@proxy/adapter-|^apps/|@proxy/gateway" },
    },
    {
      name: "ai-sdk-imports-core-and-ai-only",
      comment:
        "packages/ai-sdk is the AI SDK middleware over core: it imports core and (types of) the `ai` its user has, nothing else: no node:*, no kit, no adapter.",
      severity: "error",
      from: { path: "^packages/ai-sdk/src" },
      to: { pathNot: "^packages/(core|ai-sdk)/src/|(^|/)node_modules/ai/" },
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
      name: "no-circular",
      comment:
        "No import cycle between files (type imports included): a cycle hides which module is the lower one; move the shared part into its own file.",
      severity: "error",
      from: { path: "^(packages|apps)/" },
      to: { circular: true },
    },
    {
      name: "no-unresolvable",
      severity: "error",
      from: { path: "^(packages|apps)/[^/]+/src" },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // npm packages are resolved (so the rules above see them) but not cruised into.
    doNotFollow: { path: "(^|/)node_modules/" },
    exclude: { path: "^(packages|apps)/[^/]+/(dist|test)/|\\.test\\.ts$" },
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
