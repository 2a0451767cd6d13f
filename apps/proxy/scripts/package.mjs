// `npm run package`: writes artifacts/codex-tool-gateway-<version>.tgz, the gateway as one npm
// package that installs and runs without this repository. The workspace packages are bundled into
// its dist; their npm dependencies (and @openai/codex, whose binary the gateway runs) become the
// package's dependencies, pinned to the versions this checkout installed and tested.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { importedSpecifiers, isUnprefixedBuiltin, packageOf } from "./bundle-imports.mjs";

const app = fileURLToPath(new URL("..", import.meta.url));
const root = join(app, "..", "..");
const artifacts = join(root, "artifacts");
const manifest = (dir) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));

/** npm dependencies of `dir` and of the workspace packages it depends on, at their installed versions. */
const npmDependencies = (dir, into = {}, seen = new Set()) => {
  for (const name of Object.keys(manifest(dir).dependencies ?? {})) {
    const depDir = join(dir, "node_modules", name); // pnpm links every direct dependency here
    if (name.startsWith("@proxy/")) {
      if (!seen.has(name)) npmDependencies(depDir, into, seen.add(name));
      continue;
    }
    const version = manifest(depDir).version;
    if (into[name] !== undefined && into[name] !== version)
      throw new Error(`${name}: two versions (${into[name]}, ${version}) among the bundled packages`);
    into[name] = version;
  }
  return into;
};

/** Bare specifiers the bundle imports: each must be a `node:` builtin or a declared dependency. */
const checkImports = (dist, dependencies) => {
  const problems = [];
  for (const file of readdirSync(dist).filter((f) => f.endsWith(".js"))) {
    const code = readFileSync(join(dist, file), "utf8");
    // Bundled CommonJS calls require(), which an ESM file has only when the bundle's banner made one.
    if (code.includes("__require(") && !/const require = __createRequire\(import\.meta\.url\)/.test(code))
      problems.push(`${file}: bundled CommonJS without a require() (a dependency was inlined)`);
    for (const spec of importedSpecifiers(code)) {
      if (spec.startsWith(".") || spec.startsWith("node:")) continue;
      if (isUnprefixedBuiltin(spec)) problems.push(`${file}: "${spec}" (a builtin without its node: prefix)`);
      else if (dependencies[packageOf(spec)] === undefined)
        problems.push(`${file}: "${spec}" (not a dependency)`);
    }
  }
  if (problems.length > 0)
    throw new Error(`the bundle imports what an install will not have:\n${problems.join("\n")}`);
};

/**
 * A bundled file's name in a source map, relative to the package and never climbing out of it:
 * the builder's directories (checkout, pnpm store, temp dir) stay on the builder. npm packages
 * go under `node_modules/<name>/…`, the workspace packages under `workspace/<dir>/…`.
 */
const shippedSource = (absolute) => {
  const parts = absolute.split(sep);
  const modules = parts.lastIndexOf("node_modules");
  if (modules >= 0) return `../node_modules/${parts.slice(modules + 1).join("/")}`;
  const inApp = relative(app, absolute);
  if (!inApp.startsWith("..")) return `../${inApp.split(sep).join("/")}`;
  const inRoot = relative(root, absolute);
  if (!inRoot.startsWith("..")) return `../workspace/${inRoot.split(sep).join("/")}`;
  throw new Error(`a source map names a file outside the checkout: ${absolute}`);
};

/** Rewrites every map under `dist` to package-relative sources (the code itself stays in sourcesContent). */
const relativeSourceMaps = (dist) => {
  for (const file of readdirSync(dist).filter((f) => f.endsWith(".map"))) {
    const path = join(dist, file);
    const map = JSON.parse(readFileSync(path, "utf8"));
    map.sources = map.sources.map((s) => shippedSource(resolve(dirname(path), map.sourceRoot ?? "", s)));
    delete map.sourceRoot;
    writeFileSync(path, JSON.stringify(map));
  }
};

const gateway = manifest(app);
const stage = mkdtempSync(join(tmpdir(), "codex-tool-gateway-package-"));
try {
  execFileSync(
    join(root, "node_modules", ".bin", "tsup"),
    ["--config", "tsup.package.config.ts", "--out-dir", join(stage, "dist")],
    { cwd: app, stdio: ["ignore", "ignore", "inherit"] },
  );
  const dependencies = npmDependencies(app);
  checkImports(join(stage, "dist"), dependencies);
  relativeSourceMaps(join(stage, "dist"));
  // Everything else the gateway ships besides its build (bin, the inspector's page) goes as it is.
  for (const entry of gateway.files.filter((f) => f !== "dist"))
    cpSync(join(app, entry), join(stage, entry), { recursive: true });
  cpSync(join(root, "README.md"), join(stage, "README.md"));
  const pkg = {
    name: "codex-tool-gateway",
    version: gateway.version,
    description: manifest(root).description,
    type: "module",
    license: gateway.license,
    engines: gateway.engines,
    bin: gateway.bin,
    exports: { ".": "./dist/index.js" },
    files: gateway.files,
    dependencies: Object.fromEntries(Object.entries(dependencies).sort(([a], [b]) => a.localeCompare(b))),
  };
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  mkdirSync(artifacts, { recursive: true });
  for (const old of readdirSync(artifacts).filter((f) => f.startsWith(`${pkg.name}-`) && f.endsWith(".tgz")))
    rmSync(join(artifacts, old));
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const out = execFileSync(npm, ["pack", "--pack-destination", artifacts, "--loglevel=error"], {
    cwd: stage,
    encoding: "utf8",
  });
  process.stdout.write(`${join(artifacts, out.trim().split("\n").at(-1))}\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
