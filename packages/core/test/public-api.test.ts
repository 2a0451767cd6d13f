import { readFileSync } from "node:fs";
import * as core from "@proxy/core";
import { describe, expect, it } from "vitest";

const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");

/** The names `src/index.ts` exports, each marked as a type or a value. */
const indexExports = (): Map<string, "type" | "value"> => {
  const names = new Map<string, "type" | "value">();
  for (const m of read("../src/index.ts").matchAll(/export (type )?\{([^}]*)\} from/g)) {
    for (const raw of (m[2] ?? "").split(",")) {
      const name = raw.trim();
      if (name === "") continue;
      const type = m[1] !== undefined || name.startsWith("type ");
      names.set(name.replace(/^type /, ""), type ? "type" : "value");
    }
  }
  return names;
};

/** The names docs/core.md's "Public API" section lists (types in italics). */
const documented = (): Map<string, "type" | "value"> => {
  const section = read("../../../docs/core.md").split("## Public API\n")[1]?.split("\n## ")[0] ?? "";
  const names = new Map<string, "type" | "value">();
  for (const line of section.split("\n").filter((l) => l.startsWith("- **"))) {
    for (const m of line.split("**: ")[1]?.matchAll(/(\*?)`([^`]+)`\*?/g) ?? []) {
      names.set(m[2] ?? "", m[1] === "*" ? "type" : "value");
    }
  }
  return names;
};

describe("core's public API is deliberate", () => {
  it("is named exports only, grouped by concept: no `export *`", () => {
    expect(read("../src/index.ts")).not.toMatch(/export (type )?\*/);
  });

  it("is exactly what docs/core.md lists", () => {
    const exported = indexExports();
    expect(exported.size).toBeGreaterThan(50);
    expect(Object.fromEntries(documented())).toEqual(Object.fromEntries(exported));
  });

  it("exports at run time exactly the values it names", () => {
    const values = [...indexExports()].filter(([, kind]) => kind === "value").map(([name]) => name);
    expect(Object.keys(core).sort()).toEqual(values.sort());
  });

  it("keeps internals out of reach: only the index and ./testing are importable", async () => {
    const manifest = JSON.parse(read("../package.json")) as { exports: Record<string, unknown> };
    expect(Object.keys(manifest.exports)).toEqual([".", "./testing"]);
    await expect(
      import(/* @vite-ignore */ ["@proxy/core", "src/turn/call-gate.ts"].join("/")),
    ).rejects.toThrow(/src\/turn\/call-gate|exports|not exported/i);
  });
});
