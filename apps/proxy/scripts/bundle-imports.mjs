import { builtinModules } from "node:module";

/** The module specifiers an ESM file built by tsup/esbuild imports (static, re-exported, dynamic). */
export const importedSpecifiers = (code) =>
  [
    ...code.matchAll(/^(?:import|export)\b[^"';]*?\bfrom\s*["']([^"']+)["']/gm),
    ...code.matchAll(/^import\s*["']([^"']+)["']/gm),
    // Not the type imports of JSDoc comments that bundled dependencies keep (`{import('net').Socket}`).
    ...code.matchAll(/(?<!\{|typeof )\bimport\(\s*["']([^"']+)["']\s*\)/g),
  ].map((m) => m[1]);

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
export const packageOf = (spec) =>
  (spec.startsWith("@") ? spec.split("/").slice(0, 2) : spec.split("/", 1)).join("/");

/** A builtin imported without `node:`: fine for most, fatal for the prefix-only ones (`sqlite`, `test`). */
export const isUnprefixedBuiltin = (spec) => builtinModules.includes(packageOf(spec)) || spec === "sqlite";
