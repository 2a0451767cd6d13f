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
