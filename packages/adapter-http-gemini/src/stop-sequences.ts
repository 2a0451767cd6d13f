/**
 * Cuts answer text at the first stop sequence, over deltas split anywhere: it holds back the last
 * `longest - 1` characters until the next delta (or the end) shows they start no stop sequence.
 */
export const createStopMatcher = (stops: ReadonlyArray<string>) => {
  const hold = stops.reduce((n, s) => Math.max(n, s.length), 0) - 1;
  let pending = "";
  let stopped = false;
  return {
    /** The text that may be sent now. */
    push(delta: string): string {
      if (stopped) return "";
      if (hold < 0) return delta;
      pending += delta;
      let cut = -1;
      for (const stop of stops) {
        const at = pending.indexOf(stop);
        if (at >= 0 && (cut < 0 || at < cut)) cut = at;
      }
      if (cut >= 0) {
        stopped = true;
        const out = pending.slice(0, cut);
        pending = "";
        return out;
      }
      const keep = Math.min(hold, pending.length);
      const out = pending.slice(0, pending.length - keep);
      pending = pending.slice(pending.length - keep);
      return out;
    },
    /** What was held back, once the text is known to be complete. */
    flush(): string {
      const out = pending;
      pending = "";
      return out;
    },
    get stopped() {
      return stopped;
    },
  };
};
