/**
 * The optional "before" contender: `BENCH_BEFORE_DIR` names a checkout of an earlier commit, already
 * built (`pnpm install && pnpm run build` there). The peer section runs its bin and the HTTP section
 * its packages' dist beside this checkout's, in the same alternation, so a before/after comes from
 * one run on one machine state.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

export interface BeforeBuild {
  /** Absolute path of the earlier checkout. */
  readonly dir: string;
  /** `git rev-parse --short HEAD` there ("unknown" outside git). */
  readonly commit: string;
}

/** The earlier checkout's built bin, as `npm start` runs it. */
export const beforeBin = (b: BeforeBuild) => join(b.dir, "apps/proxy/bin/codex-tool-gateway.mjs");

/** Reads BENCH_BEFORE_DIR; fails early (not minutes into the run) when that tree is not built. */
export const beforeFromEnv = (env: NodeJS.ProcessEnv): BeforeBuild | undefined => {
  const raw = env.BENCH_BEFORE_DIR;
  if (!raw) return undefined;
  const dir = resolve(raw);
  for (const built of ["apps/proxy/dist/index.js", "apps/proxy/dist/cli.js", "packages/core/dist/index.js"])
    if (!existsSync(join(dir, built)))
      throw new Error(`BENCH_BEFORE_DIR=${dir}: ${built} is missing (run \`pnpm run build\` there first)`);
  let commit = "unknown";
  try {
    commit = execFileSync("git", ["-C", dir, "rev-parse", "--short", "HEAD"], { encoding: "utf8" }).trim();
  } catch {
    // Not a git checkout: the report says "unknown".
  }
  return { dir, commit };
};
