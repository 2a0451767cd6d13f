import { readFileSync } from "node:fs";
import * as library from "@proxy/core";
import * as gateway from "@proxy/core/gateway";
import { describe, expect, it } from "vitest";

const read = (path: string) => readFileSync(new URL(path, import.meta.url), "utf8");

/** The names an entry file exports, each marked as a type or a value. */
const entryExports = (file: string): Map<string, "type" | "value"> => {
  const names = new Map<string, "type" | "value">();
  for (const m of read(`../src/${file}`).matchAll(/export (type )?\{([^}]*)\} from/g)) {
    for (const raw of (m[2] ?? "").split(",")) {
      const name = raw.trim();
      if (name === "") continue;
      const type = m[1] !== undefined || name.startsWith("type ");
      names.set(name.replace(/^type /, ""), type ? "type" : "value");
    }
  }
  return names;
};

/** The names a section of docs/core.md lists (types in italics). */
const documented = (heading: string): Map<string, "type" | "value"> => {
  const section = read("../../../docs/core.md").split(`## ${heading}\n`)[1]?.split("\n## ")[0] ?? "";
  const names = new Map<string, "type" | "value">();
  for (const line of section.split("\n").filter((l) => l.startsWith("- **"))) {
    for (const m of line.split("**: ")[1]?.matchAll(/(\*?)`([^`]+)`\*?/g) ?? []) {
      names.set(m[2] ?? "", m[1] === "*" ? "type" : "value");
    }
  }
  return names;
};

const entries = [
  { entry: "@proxy/core", file: "index.ts", heading: "Public API", module: library as object },
  { entry: "@proxy/core/gateway", file: "gateway.ts", heading: "Gateway API", module: gateway as object },
];

describe.each(entries)("$entry is deliberate", ({ file, heading, module }) => {
  it("is named exports only, grouped by concept: no `export *`", () => {
    expect(read(`../src/${file}`)).not.toMatch(/export (type )?\*/);
  });

  it(`is exactly what docs/core.md's "${heading}" lists`, () => {
    const exported = entryExports(file);
    expect(exported.size).toBeGreaterThan(20);
    expect(Object.fromEntries(documented(heading))).toEqual(Object.fromEntries(exported));
  });

  it("exports at run time exactly the values it names", () => {
    const values = [...entryExports(file)].filter(([, kind]) => kind === "value").map(([name]) => name);
    expect(Object.keys(module).sort()).toEqual(values.sort());
  });
});

describe("core's two entries", () => {
  it("share no name: a name belongs to the library or to the gateway", () => {
    const libraryNames = entryExports("index.ts");
    expect([...entryExports("gateway.ts").keys()].filter((name) => libraryNames.has(name))).toEqual([]);
  });

  it("keep the library free of gateway machinery (runTurn, stores, admission)", () => {
    const libraryNames = entryExports("index.ts");
    for (const name of ["runTurn", "TextBackend", "ResponseStore", "UsageStore", "createAdmissionGate"]) {
      expect(libraryNames.has(name)).toBe(false);
    }
  });

  it("keeps internals out of reach: only the entries and ./testing are importable", async () => {
    const manifest = JSON.parse(read("../package.json")) as { exports: Record<string, unknown> };
    expect(Object.keys(manifest.exports)).toEqual([".", "./gateway", "./testing"]);
    await expect(
      import(/* @vite-ignore */ ["@proxy/core", "src/turn/call-gate.ts"].join("/")),
    ).rejects.toThrow(/src\/turn\/call-gate|exports|not exported/i);
  });
});
