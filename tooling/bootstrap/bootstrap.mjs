#!/usr/bin/env node
// Zero-dependency bootstrap: runs on any Node >= 18, brings Node 24 and the pinned pnpm
// from the npm registry when the machine lacks them, installs with the frozen lockfile,
// then runs `pnpm run <script>` on Node 24. Used by `npm start` / `npm test` and `.ci/run`.
// Starting the gateway installs only what it needs (not the test clients or the bench), and a
// start in a clone whose dependencies did not change skips the install (see installed.mjs).
import { spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { installScope, isInstalled, markInstalled } from "./installed.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const cache = join(root, ".cache", "toolchain");
const TARGET_NODE_MAJOR = 24;
const [script, ...rest] = process.argv.slice(2);
if (!script) {
  console.error("usage: bootstrap.mjs <pnpm script> [args...]");
  process.exit(2);
}

const log = (msg) => process.stderr.write(`[bootstrap] ${msg}\n`);
const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
};
const npmInstall = (prefix, spec) => {
  mkdirSync(prefix, { recursive: true });
  log(`installing ${spec} from the npm registry into ${prefix}`);
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const code = run(npm, [
    "install",
    "--prefix",
    prefix,
    "--no-save",
    "--no-package-lock",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
    spec,
  ]);
  if (code !== 0) throw new Error(`npm install ${spec} failed (${code})`);
};

function nodeBinary() {
  const major = Number(process.versions.node.split(".")[0]);
  if (major >= TARGET_NODE_MAJOR) return process.execPath;
  const pkg = `node-${process.platform}-${process.arch === "x64" ? "x64" : process.arch}`;
  const prefix = join(cache, `node-${TARGET_NODE_MAJOR}`);
  const bin = join(prefix, "node_modules", pkg, "bin", "node");
  if (!existsSync(bin)) npmInstall(prefix, `${pkg}@${TARGET_NODE_MAJOR}`);
  return bin;
}

function pnpmEntry() {
  const spec = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).packageManager; // "pnpm@x.y.z"
  const version = spec.split("@")[1].split("+")[0];
  const prefix = join(cache, `pnpm-${version}`);
  const entry = join(prefix, "node_modules", "pnpm", "bin", "pnpm.cjs");
  if (!existsSync(entry)) npmInstall(prefix, `pnpm@${version}`);
  return entry;
}

// turbo and nested scripts look for `pnpm` and `node` on PATH: put shims for both first.
function shimDir(node, pnpm) {
  const dir = join(cache, "bin");
  mkdirSync(dir, { recursive: true });
  const shim = join(dir, "pnpm");
  writeFileSync(shim, `#!/bin/sh\nexec "${node}" "${pnpm}" "$@"\n`);
  chmodSync(shim, 0o755);
  return dir;
}

const node = nodeBinary();
const pnpm = pnpmEntry();
const sep = process.platform === "win32" ? ";" : ":";
const { PROXY_BOOTSTRAP_NO_FROZEN: noFrozen, ...inherited } = process.env; // ours, not the gateway's
const env = {
  ...inherited,
  PATH: `${shimDir(node, pnpm)}${sep}${dirname(node)}${sep}${process.env.PATH ?? ""}`,
  TURBO_TELEMETRY_DISABLED: "1",
  DO_NOT_TRACK: "1",
  COREPACK_ENABLE_STRICT: "0",
};
// Each step runs as a child we wait for without blocking, so a signal sent to this process (what
// `docker stop`, a supervisor or systemd send to `npm start`) reaches it: forwarded, the gateway
// drains and stops its codex children, and its exit code becomes ours.
// (pnpm passes SIGTERM and SIGINT on to its script but dies of SIGHUP: that one goes as SIGTERM.)
// The root scripts `exec` their last command, so no `sh -c` in between swallows the signal.
const FORWARDED = ["SIGTERM", "SIGINT", "SIGHUP"];
const step = (args) =>
  new Promise((resolve, reject) => {
    const child = spawn(node, [pnpm, ...args], { stdio: "inherit", cwd: root, env });
    // Once per kind: a Ctrl-C reaches pnpm from the terminal too, and npm forwards it to us again.
    const sent = new Set();
    const forward = (signal) => {
      const as = signal === "SIGHUP" ? "SIGTERM" : signal;
      if (!sent.has(as)) child.kill(as);
      sent.add(as);
    };
    for (const signal of FORWARDED) process.on(signal, forward);
    child.once("error", reject);
    child.once("exit", (status, signal) => {
      for (const s of FORWARDED) process.off(s, forward);
      resolve({ status, signal });
    });
  });
const exitLike = ({ status, signal }) => {
  if (signal)
    process.kill(process.pid, signal); // died of a signal: so do we, the same way
  else process.exit(status ?? 1);
};

const frozen = noFrozen ? [] : ["--frozen-lockfile"];
const scope = installScope(script);
// The binaries' paths name their versions (`node-24`, `pnpm-10.x`): another one installs again.
const inputs = { root, scope, tools: [node, pnpm, ...frozen] };
const upToDate = isInstalled(inputs);
if (upToDate) log(`dependencies unchanged since they were installed: pnpm install skipped`);
const installed = upToDate
  ? { status: 0, signal: null }
  : await step(["install", ...frozen, ...scope.filters, "--reporter=append-only"]);
if (installed.status !== 0) exitLike(installed);
else {
  markInstalled(inputs);
  exitLike(await step(["run", script, ...rest]));
}
