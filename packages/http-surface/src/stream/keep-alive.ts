/**
 * One timer per stream, re-armed with `refresh()` on every write: a silent backend (long reasoning,
 * held text) still shows life, with no allocation on the per-delta path.
 */
export const createKeepAlive = (
  frame: string | undefined,
  everyMs: number,
  ping: (frame: string) => void,
) => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = frame === undefined || everyMs <= 0;
  const fire = () => {
    if (stopped || frame === undefined) return;
    ping(frame);
    timer?.refresh();
  };
  return {
    rearm(): void {
      if (stopped) return;
      if (timer) timer.refresh();
      else timer = setTimeout(fire, everyMs);
    },
    stop(): void {
      stopped = true;
      clearTimeout(timer);
    },
  };
};
