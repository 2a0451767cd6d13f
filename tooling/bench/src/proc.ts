import { readdir, readFile } from "node:fs/promises";
import { createServer } from "node:net";

/** A `.js` entry runs under this Node; anything else is executed directly (as the adapter does). */
export const commandLineOf = (command: string, args: ReadonlyArray<string>): [string, string[]] =>
  /\.[cm]?js$/.test(command) ? [process.execPath, [command, ...args]] : [command, [...args]];

/** Resident set size of a Linux process in bytes (NaN when unknown). */
export const rssOf = async (pid: number | undefined): Promise<number> => {
  if (pid === undefined) return Number.NaN;
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  return kb ? Number(kb) * 1024 : Number.NaN;
};

/** CPU time (ms, user + system, all threads) a process has used so far; 10 ms ticks (Linux /proc). */
export const cpuMsOf = async (pid: number | undefined): Promise<number> => {
  if (pid === undefined) return Number.NaN;
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of stat(5), counted from after the command name (field 3 is index 0).
  return stat ? ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 : Number.NaN;
};

/** The pids of a process's direct children (Linux /proc). */
export const childrenOf = async (pid: number): Promise<number[]> => {
  const tasks = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const out: number[] = [];
  for (const task of tasks) {
    const list = await readFile(`/proc/${pid}/task/${task}/children`, "utf8").catch(() => "");
    for (const id of list.trim().split(/\s+/)) if (id) out.push(Number(id));
  }
  return out;
};

/** Summed RSS of every descendant of `pid` (not `pid` itself). */
export const descendantsRss = async (pid: number): Promise<number> => {
  let total = 0;
  for (const child of await childrenOf(pid)) {
    const rss = await rssOf(child);
    if (Number.isFinite(rss)) total += rss;
    total += await descendantsRss(child);
  }
  return total;
};

/** A free loopback port: one the kernel hands out, closed again for the caller to listen on. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

/** The value after `--name` on the command line, or `fallback`. */
export const flag = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
