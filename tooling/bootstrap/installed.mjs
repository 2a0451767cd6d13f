// Which dependencies a bootstrap step installs, and whether they already are: a warm `npm start`
// skips the no-op `pnpm install` (tens of seconds on a busy machine). Zero dependencies, any Node >= 18.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Starting, packaging and the demo need the gateway's packages and the root's build tools; the test
 * clients (`apps/proxy/test`: Claude Code, the Gemini CLI, …) and the bench (Portkey) are for
 * `npm test` and `pnpm bench`, which install everything.
 */
const START = {
  name: "the gateway",
  filters: ["--filter", "codex-tool-gateway", "--filter", "@proxy/gateway..."],
};
const ALL = { name: "everything", filters: [] };
const START_SCRIPTS = new Set(["gateway", "demo:run", "package:build"]);

export const installScope = (script) => (START_SCRIPTS.has(script) ? START : ALL);

/** Written by a finished install; inside node_modules, so removing that removes the stamp too. */
const stampOf = (root) => join(root, "node_modules", ".bootstrap-installed.json");

/** The workspace's package directories, from pnpm-workspace.yaml's `packages:` list (`dir/*` or `dir`). */
const workspaceDirs = (root) => {
  const yaml = readFileSync(join(root, "pnpm-workspace.yaml"), "utf8");
  const list = /^packages:\n((?:[ \t]+(?:-.*|#.*)\n)+)/m.exec(yaml)?.[1] ?? "";
  const patterns = [...list.matchAll(/^[ \t]+-[ \t]*["']?([^"'\n#]+?)["']?[ \t]*$/gm)].map((m) => m[1]);
  const dirs = [];
  for (const pattern of patterns) {
    if (!pattern.endsWith("/*")) dirs.push(pattern);
    else {
      const parent = pattern.slice(0, -2);
      if (!existsSync(join(root, parent))) continue;
      for (const entry of readdirSync(join(root, parent), { withFileTypes: true }))
        if (entry.isDirectory()) dirs.push(`${parent}/${entry.name}`);
    }
  }
  return dirs.filter((d) => existsSync(join(root, d, "package.json"))).sort();
};

/** What an install depends on: the lockfile, the workspace list, every manifest, the tools. */
const fingerprint = ({ root, tools }) => {
  const hash = createHash("sha256");
  const files = ["pnpm-lock.yaml", "pnpm-workspace.yaml", "package.json", ".npmrc"];
  for (const dir of workspaceDirs(root)) files.push(`${dir}/package.json`);
  for (const file of files) {
    const path = join(root, file);
    hash.update(`${file}\0${existsSync(path) ? readFileSync(path) : "-"}\0`);
  }
  hash.update(JSON.stringify(tools));
  return hash.digest("hex");
};

/** Whether a finished install of at least `scope` matches the checkout as it is now. */
export const isInstalled = (inputs) => {
  const { root, scope } = inputs;
  try {
    const stamp = JSON.parse(readFileSync(stampOf(root), "utf8"));
    const covers = stamp.scope === ALL.name || stamp.scope === scope.name;
    // pnpm's own record of the install is there too (node_modules was not half removed).
    return (
      covers &&
      existsSync(join(root, "node_modules", ".modules.yaml")) &&
      stamp.fingerprint === fingerprint(inputs)
    );
  } catch {
    return false;
  }
};

export const markInstalled = (inputs) => {
  writeFileSync(
    stampOf(inputs.root),
    `${JSON.stringify({ scope: inputs.scope.name, fingerprint: fingerprint(inputs) })}\n`,
  );
};
