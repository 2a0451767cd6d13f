import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, extname, join } from "node:path";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/**
 * The page's files, shipped in the host package's `ui/` folder (the gateway's `apps/proxy/ui`).
 * The host runs from its `src/` (tests) or from a bundle in `dist/`, so the folder is looked for
 * upwards from where the host says it runs.
 */
export const findUiDir = (from: string): string => {
  for (let dir = from, i = 0; i < 4; i++, dir = dirname(dir)) {
    const candidate = join(dir, "ui");
    if (existsSync(join(candidate, "index.html"))) return candidate;
  }
  throw new Error(`The inspector's page (ui/index.html) was not found above ${from}.`);
};

export interface StaticFile {
  readonly body: string;
  readonly type: string;
}

/** Every file of the page read once at startup (a few hundred KiB): no disk reads per request. */
export const loadStaticFiles = (dir: string): ReadonlyMap<string, StaticFile> => {
  const files = new Map<string, StaticFile>();
  const walk = (sub: string) => {
    for (const name of readdirSync(join(dir, sub))) {
      const rel = sub ? `${sub}/${name}` : name;
      if (statSync(join(dir, rel)).isDirectory()) walk(rel);
      else if (TYPES[extname(name)])
        files.set(rel, { body: readFileSync(join(dir, rel), "utf8"), type: TYPES[extname(name)] as string });
    }
  };
  walk("");
  return files;
};
