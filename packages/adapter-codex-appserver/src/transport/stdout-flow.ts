/** How much the turns of one app-server may hold unread before its stdout stops being read. */
export interface FlowLimits {
  /** Bytes one turn may hold for its reader; past it the stdout pauses until the turn is down to half. */
  readonly perTurnBytes: number;
  /** Bytes all its reading turns may hold together; past it the stdout pauses until they are down to three quarters. */
  readonly perProcessBytes: number;
  /**
   * While the stdout is paused, a turn holding bytes whose reader took nothing for this long is
   * stopped (`onStalled`): every turn of the app-server is waiting for that client.
   */
  readonly stalledReaderMs: number;
}

/** 2 MiB per turn (a paused reader holds about that much of its answer's text), 16 MiB per app-server, 30 s. */
export const DEFAULT_FLOW_LIMITS: FlowLimits = {
  perTurnBytes: 2 * 1024 * 1024,
  perProcessBytes: 16 * 1024 * 1024,
  stalledReaderMs: 30_000,
};

/** One turn's share: what its queue holds for its reader. */
export interface FlowAccount {
  /** The producer queued `bytes` (or, negative, made what is queued smaller). */
  add(bytes: number): void;
  /** The reader took `bytes` (0: it pulled and found nothing new); both count as progress. */
  take(bytes: number): void;
  /**
   * The turn's reader has begun. Before it, the turn never pauses the stdout: it is waiting for
   * codex's answers to its own requests, which come through the same pipe.
   */
  reading(): void;
  /** Bytes held now. */
  held(): number;
  /** The turn let go of everything it held (it ended, or was stopped). */
  close(): void;
}

export interface StdoutFlow {
  /** `onStalled`: the stdout is paused, this turn holds bytes and its reader took nothing for `stalledReaderMs`. */
  open(onStalled: () => void): FlowAccount;
  /** The stdout is not being read now (backpressure). */
  paused(): boolean;
  /** Bytes all reading turns hold now. */
  held(): number;
}

interface Account {
  held: number;
  reading: boolean;
  /** Over its share: set past `perTurnBytes`, cleared at half of it. */
  over: boolean;
  lastTakeAt: number;
  readonly onStalled: () => void;
}

/**
 * Backpressure from the turns' readers to codex. Every turn of an app-server shares its stdout,
 * so a turn cannot be paused alone: while one turn holds more than its share, or all together more
 * than the process's, reading the stdout stops (`pause`), codex's writes block and with them its
 * model streams; reading resumes once they are down again. That stalls the app-server's other
 * turns too, for as long as the slow reader needs to take its share, and a reader that takes
 * nothing for `stalledReaderMs` meanwhile has its turn stopped. Bytes are counted, never judged:
 * nothing fails for being large.
 */
export const createStdoutFlow = (
  stream: { pause(): unknown; resume(): unknown },
  limits: FlowLimits,
  now: () => number = Date.now,
): StdoutFlow => {
  const accounts = new Set<Account>();
  let total = 0;
  let over = 0;
  let heavy = false;
  let paused = false;
  let sweeper: ReturnType<typeof setInterval> | undefined;

  const sweep = () => {
    const before = now() - limits.stalledReaderMs;
    for (const a of accounts) if (a.reading && a.held > 0 && a.lastTakeAt <= before) a.onStalled();
  };
  const apply = () => {
    const pause = over > 0 || heavy;
    if (pause === paused) return;
    paused = pause;
    if (pause) {
      stream.pause();
      // At least once a second: a stalled reader is stopped before other turns' requests time out.
      sweeper = setInterval(sweep, Math.min(1_000, Math.max(10, limits.stalledReaderMs / 4)));
      sweeper.unref?.();
    } else {
      clearInterval(sweeper);
      sweeper = undefined;
      stream.resume();
    }
  };
  const change = (a: Account, bytes: number) => {
    a.held += bytes;
    if (!a.reading) return;
    total += bytes;
    let toggled = false;
    if (a.over ? a.held <= limits.perTurnBytes / 2 : a.held > limits.perTurnBytes) {
      a.over = !a.over;
      over += a.over ? 1 : -1;
      toggled = true;
    }
    const heavyNow = heavy ? total > (limits.perProcessBytes * 3) / 4 : total > limits.perProcessBytes;
    if (!toggled && heavyNow === heavy) return;
    heavy = heavyNow;
    apply();
  };

  return {
    paused: () => paused,
    held: () => total,
    open(onStalled) {
      const a: Account = { held: 0, reading: false, over: false, lastTakeAt: now(), onStalled };
      accounts.add(a);
      return {
        add: (bytes) => change(a, bytes),
        take(bytes) {
          a.lastTakeAt = now();
          if (bytes !== 0) change(a, -bytes);
        },
        reading() {
          if (a.reading || !accounts.has(a)) return;
          a.reading = true;
          a.lastTakeAt = now();
          const held = a.held;
          a.held = 0;
          change(a, held);
        },
        held: () => a.held,
        close() {
          if (!accounts.delete(a)) return;
          change(a, -a.held);
          a.reading = false;
        },
      };
    },
  };
};
