/**
 * Fires `onStall` when a write stays blocked for `delay()` ms (undefined = never). Armed only while the
 * client is not reading, so the flowing path costs nothing.
 */
export const createStallGuard = (onStall: () => void, delay: () => number | undefined) => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return {
    arm(): void {
      clearTimeout(timer);
      const ms = delay();
      timer = ms === undefined ? undefined : setTimeout(onStall, ms);
    },
    disarm(): void {
      clearTimeout(timer);
      timer = undefined;
    },
  };
};
