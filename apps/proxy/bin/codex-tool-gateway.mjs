#!/usr/bin/env node
// Stable bin entry (exists before the first build, so installs can link it): runs the built CLI.
// Plain JavaScript that any Node parses, so an old Node gets one clear line instead of a stack trace
// from deep in the gateway (node:sqlite and friends).
import { readFileSync } from "node:fs";
import module from "node:module";
import { homedir } from "node:os";
import { join } from "node:path";

const floor = /(\d+)\.(\d+)/.exec(
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).engines.node,
);
const [major, minor] = process.versions.node.split(".").map(Number);
if (floor && (major < Number(floor[1]) || (major === Number(floor[1]) && minor < Number(floor[2])))) {
  process.stderr.write(
    `codex-tool-gateway needs Node.js ${floor[1]}.${floor[2]} or newer; this is ${process.version}. Install Node 24, or run \`npm start\` in a checkout of the repository, which fetches it.\n`,
  );
  process.exit(1);
}
// V8's code cache on disk: later starts skip compiling the bundle (~100 ms). Kept in the user's own
// cache directory, not a shared temp one; NODE_COMPILE_CACHE moves it, NODE_DISABLE_COMPILE_CACHE=1
// turns it off, and a directory that cannot be written only means no cache.
module.enableCompileCache(
  process.env.NODE_COMPILE_CACHE ||
    join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "codex-tool-gateway", "v8"),
);
await import("../dist/cli.js");
