import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** The Rust target triples `@openai/codex` ships, keyed by `${platform}-${arch}`. */
const TRIPLES: Readonly<Record<string, string>> = {
  "linux-x64": "x86_64-unknown-linux-musl",
  "linux-arm64": "aarch64-unknown-linux-musl",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
  "win32-x64": "x86_64-pc-windows-msvc",
  "win32-arm64": "aarch64-pc-windows-msvc",
};

/**
 * Which codex to run: an explicit option, else `CODEX_BIN`, else the pinned `@openai/codex`
 * dependency — its native platform binary when installed (no Node wrapper process in between),
 * falling back to the package's `bin/codex.js` (run with this Node).
 */
export const resolveCodexCommand = (explicit?: string, env: NodeJS.ProcessEnv = process.env): string => {
  if (explicit) return explicit;
  if (env.CODEX_BIN) return env.CODEX_BIN;
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve("@openai/codex/package.json");
  const key = `${process.platform}-${process.arch}`;
  const triple = TRIPLES[key];
  if (triple !== undefined) {
    try {
      const platformJson = createRequire(packageJson).resolve(`@openai/codex-${key}/package.json`);
      const exe = process.platform === "win32" ? "codex.exe" : "codex";
      const binary = join(dirname(platformJson), "vendor", triple, "bin", exe);
      if (existsSync(binary)) return binary;
    } catch {
      // optional platform package missing: fall through to the wrapper, which explains what to reinstall
    }
  }
  return join(dirname(packageJson), "bin", "codex.js");
};

/** A `.js` entry runs under this Node; anything else is executed directly. */
export const commandLine = (command: string, args: ReadonlyArray<string>): [string, string[]] =>
  /\.[cm]?js$/.test(command) ? [process.execPath, [command, ...args]] : [command, [...args]];
