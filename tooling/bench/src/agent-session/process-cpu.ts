import { readdir, readFile } from "node:fs/promises";

/**
 * CPU time of a process in ms, to the nanosecond: the sum of its threads' run time from
 * `/proc/<pid>/task/<tid>/schedstat` (Linux). `/proc/<pid>/stat` counts 10 ms ticks, too coarse for
 * a turn that costs a few ms. A thread that exited since the last read takes its time with it
 * (Node's threads live as long as the process).
 */
export const processCpuMs = async (pid: number): Promise<number> => {
  let ns = 0;
  for (const tid of await readdir(`/proc/${pid}/task`)) {
    const stat = await readFile(`/proc/${pid}/task/${tid}/schedstat`, "utf8").catch(() => "0");
    ns += Number(stat.split(" ")[0]);
  }
  return ns / 1e6;
};

/** The median of a non-empty list (mean of the middle two for an even length). */
export const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};
