import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "../logger.js";
import { readProviderEnvKeys } from "./provider-env-keys.js";
import { writeSealedCatalogWithWindows } from "./sealed-catalog.js";
import { sealedEnvironment } from "./sealed-environment.js";
import { sealedThreadParams } from "./sealed-thread-config.js";

/** A TOML parser's error as one line: its first line and where (`line 1, column 10`). */
const tomlProblem = (err: unknown): string => {
  const { message, line, column } = (err ?? {}) as { message?: unknown; line?: unknown; column?: unknown };
  const first = String(message ?? err).split("\n")[0] ?? "";
  return typeof line === "number" ? `${first} (line ${line}, column ${column})` : first;
};

/** What every app-server of one backend shares: its environment and its sealed thread params. */
export interface SealedWorkspace {
  /** The child's environment: allow-listed names, the providers' `env_key`s, an empty PATH directory. */
  readonly childEnv: Promise<NodeJS.ProcessEnv>;
  /** The sealed `thread/start` params (the catalog written by `codex debug models`, an empty cwd). */
  readonly sealed: Promise<Record<string, unknown>>;
  /** Each catalog model's context window in tokens (empty if the catalog could not be built). */
  readonly contextWindows: Promise<ReadonlyMap<string, number>>;
  /** Removes the private directory. */
  remove(): Promise<void>;
}

/**
 * The sealed catalog, the throwaway cwd and the child's empty PATH directory live in one private
 * (0700) temp dir per backend. Starts at once; a failure is logged here and surfaces where `sealed`
 * is awaited.
 */
export const prepareSealedWorkspace = (options: {
  readonly command: string;
  readonly source: NodeJS.ProcessEnv;
  readonly passEnv: ReadonlyArray<string>;
  readonly logger: Logger;
}): SealedWorkspace => {
  const { command, source, logger } = options;
  const privateDir = mkdtemp(join(tmpdir(), "codex-backend-"));
  const childEnv = privateDir.then(async (dir) => {
    // One line an operator can act on: the parser's own first line (where), never a stack.
    const providerKeys = await readProviderEnvKeys(source, (path, err) =>
      logger.warn(
        { path, detail: tomlProblem(err) },
        `codex: ${path} is not valid TOML: codex ignores all of it and runs on its defaults (no model provider or setting of it applies); fix the file`,
      ),
    );
    if (providerKeys.length > 0)
      logger.info({ names: providerKeys }, "codex: passing its providers' env_key variables");
    return sealedEnvironment(source, [...options.passEnv, ...providerKeys], join(dir, "empty-path"));
  });
  const catalog = privateDir.then(async (dir) => {
    const cwd = join(dir, "empty-cwd");
    await mkdir(cwd, { mode: 0o700 });
    await mkdir(join(dir, "empty-path"), { mode: 0o700 });
    const written = await writeSealedCatalogWithWindows({ command, env: await childEnv, dir });
    logger.info({ catalog: written.path, command }, "codex: sealed model catalog written");
    return { cwd, ...written };
  });
  const sealed = catalog.then(
    ({ path, cwd }) => sealedThreadParams(path, cwd) as unknown as Record<string, unknown>,
  );
  // Its message holds codex's own stderr (the reason); the start reports it, the stack says nothing.
  sealed.catch((err) =>
    logger.error(
      { command, reason: err instanceof Error ? err.message : String(err) },
      "codex: could not build the sealed model catalog",
    ),
  );
  return {
    childEnv,
    sealed,
    contextWindows: catalog.then(
      (c) => c.contextWindows,
      () => new Map<string, number>(),
    ),
    remove: async () => rm(await privateDir, { recursive: true, force: true }),
  };
};
