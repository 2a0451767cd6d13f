import { readdirSync, readFileSync } from "node:fs";

/**
 * A server's environment, not the test runner's: no package-manager settings (pnpm and npm export
 * `npm_config_*` to their scripts), no Node options, no gateway or codex settings of the caller.
 */
export const serverEnv = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] =>
        e[1] !== undefined &&
        !/^(npm_|PNPM_|NODE_OPTIONS$|NODE_PATH$|VITEST|TURBO_|PROXY_|CODEX_BIN$)/i.test(e[0]),
    ),
  );

/** pid → parent pid of every running process (a zombie waiting for its parent counts as gone). */
export const processTable = (): Map<number, number> => {
  const table = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state !== "Z") table.set(Number(entry), Number(ppid));
    } catch {
      // exited while we looked
    }
  }
  return table;
};

/** Every process started under `pid`, however deep. */
export const descendantsOf = (pid: number): number[] => {
  const table = processTable();
  const out: number[] = [];
  for (let frontier = [pid]; frontier.length > 0; ) {
    const children = [...table].filter(([, ppid]) => frontier.includes(ppid)).map(([child]) => child);
    out.push(...children);
    frontier = children;
  }
  return out;
};

/** Waits (up to `ms`) for all of `pids` to be gone; returns those still running. */
export const stillRunningAfter = async (pids: ReadonlyArray<number>, ms: number): Promise<number[]> => {
  const deadline = Date.now() + ms;
  const running = () => {
    const table = processTable();
    return pids.filter((pid) => table.has(pid));
  };
  while (running().length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  return running();
};

/** Running processes whose environment holds `name=value` (how a test finds the codex processes it caused). */
export const processesWithEnv = (name: string, value: string): number[] => {
  const wanted = `${name}=${value}\0`;
  return [...processTable().keys()].filter((pid) => {
    try {
      return `${readFileSync(`/proc/${pid}/environ`, "latin1")}\0`.includes(wanted);
    } catch {
      return false; // exited while we looked, or not ours
    }
  });
};
