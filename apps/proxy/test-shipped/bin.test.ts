import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUILT_BIN } from "../test/support/spawn-gateway.js";
import { serverEnv } from "./support.js";

const ENGINES = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    engines: { node: string };
  }
).engines.node;

/** Prints, at exit, every file URL the process loaded (ESM and CommonJS alike). */
const RECORD_LOADS = `data:text/javascript,${encodeURIComponent(`
import { registerHooks } from "node:module";
const loaded = new Set();
registerHooks({ load(url, context, next) { loaded.add(url); return next(url, context); } });
process.on("exit", () => process.stderr.write("LOADED " + JSON.stringify([...loaded].filter((u) => u.startsWith("file:"))) + "\\n"));
`)}`;

const nodeVersionOf = (node: string): string | undefined => {
  try {
    return execFileSync(node, ["-p", "process.versions.node"], { encoding: "utf8", timeout: 10_000 }).trim();
  } catch {
    return undefined;
  }
};

/** A Node on this machine older than the gateway's `engines` floor (the system's, typically), if any. */
const olderNode = (): { node: string; version: string } | undefined => {
  const [floorMajor = 0, floorMinor = 0] = (/(\d+)\.(\d+)/.exec(ENGINES) ?? []).slice(1).map(Number);
  const candidates = new Set(
    [
      ...(process.env.PATH ?? "").split(delimiter).map((d) => join(d, "node")),
      "/usr/bin/node",
      "/usr/local/bin/node",
    ].filter((p) => existsSync(p) && p !== process.execPath),
  );
  for (const node of candidates) {
    const version = nodeVersionOf(node);
    const [major = 0, minor = 0] = (version ?? "").split(".").map(Number);
    if (version && (major < floorMajor || (major === floorMajor && minor < floorMinor)))
      return { node, version };
  }
  return undefined;
};

describe("the bin", () => {
  it("loads the gateway as a bundle: a few files of its dist, nothing from node_modules", () => {
    const run = spawnSync(process.execPath, ["--import", RECORD_LOADS, BUILT_BIN, "--version"], {
      env: serverEnv(),
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.status, run.stderr).toBe(0);
    const loaded = JSON.parse(/^LOADED (.*)$/m.exec(run.stderr)?.[1] ?? "[]") as string[];
    // --version evaluates the whole static graph of the CLI: everything a start loads before it listens.
    expect(loaded.some((u) => u.endsWith("/dist/cli.js"))).toBe(true);
    expect(loaded.filter((u) => u.includes("/node_modules/"))).toEqual([]);
    expect(loaded.length).toBeLessThanOrEqual(8);
  });

  it("keeps V8's compiled code where NODE_COMPILE_CACHE says, and starts the same from it", async () => {
    const cache = await mkdtemp(join(tmpdir(), "gateway-compile-cache-"));
    try {
      for (let i = 0; i < 2; i++) {
        const run = spawnSync(process.execPath, [BUILT_BIN, "--version"], {
          env: { ...serverEnv(), NODE_COMPILE_CACHE: cache },
          encoding: "utf8",
          timeout: 30_000,
        });
        expect(run.status, run.stderr).toBe(0);
        expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
      }
      const files = readdirSync(cache, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
      expect(files.length).toBeGreaterThan(0);
    } finally {
      await rm(cache, { recursive: true, force: true });
    }
  });

  it("under a Node older than it needs, says so in one line and exits non-zero", (ctx) => {
    const old = olderNode();
    if (!old)
      return ctx.skip(`no Node older than ${ENGINES} on this machine (PATH, /usr/bin, /usr/local/bin)`);
    const run = spawnSync(old.node, [BUILT_BIN, "--version"], {
      env: serverEnv(),
      encoding: "utf8",
      timeout: 30_000,
    });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(
        new RegExp(`needs Node\\.js .*this is v${old.version.replace(/\./g, "\\.")}.*npm start`),
      ),
    ]);
  });
});
