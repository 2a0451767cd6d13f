/** Upper bounds (ms) of the time-to-first-token histogram: percentiles to within one step. */
const TTFT_BOUNDS = [
  10,
  25,
  50,
  75,
  100,
  150,
  200,
  300,
  400,
  500,
  750,
  1_000,
  1_500,
  2_000,
  3_000,
  4_000,
  5_000,
  7_500,
  10_000,
  15_000,
  20_000,
  30_000,
  60_000,
  120_000,
  Number.POSITIVE_INFINITY,
];
const MINUTES = 60;
const slotIndex = (minute: number) => ((minute % MINUTES) + MINUTES) % MINUTES;

interface Minute {
  minute: number;
  requests: number;
  errors: number;
  clientErrors: number;
  toolCalls: number;
  readonly ttft: number[];
}

/** The last hour's series, one point per minute, oldest first (what the overview's charts draw). */
export interface TrafficSeries {
  /** Unix seconds of each minute's start. */
  readonly t: number[];
  readonly requests: number[];
  /** Gateway and backend failures: a 5xx, or a stream that ended in an error. */
  readonly errors: number[];
  /** Requests refused for the client's own mistake (4xx). */
  readonly clientErrors: number[];
  /** Failures / requests in percent (null for a minute without requests). */
  readonly errorRate: Array<number | null>;
  /** Client 4xx / requests in percent (null for a minute without requests). */
  readonly clientErrorRate: Array<number | null>;
  readonly toolCalls: number[];
  readonly ttftP50: Array<number | null>;
  readonly ttftP99: Array<number | null>;
}

const percentile = (counts: ReadonlyArray<number>, q: number): number | null => {
  const total = counts.reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < counts.length; i++) {
    seen += counts[i] as number;
    if (seen >= rank) return Number.isFinite(TTFT_BOUNDS[i]) ? (TTFT_BOUNDS[i] as number) : null;
  }
  return null;
};

/**
 * Requests, errors, tool calls and time to first token per minute for the last hour, in 60 fixed
 * slots (a slot is reused when its minute comes round again): memory does not grow with traffic.
 */
export const createTrafficStats = (now: () => number = Date.now) => {
  const slots: Minute[] = Array.from({ length: MINUTES }, () => ({
    minute: -1,
    requests: 0,
    errors: 0,
    clientErrors: 0,
    toolCalls: 0,
    ttft: TTFT_BOUNDS.map(() => 0),
  }));
  const slotFor = (minute: number): Minute => {
    const slot = slots[slotIndex(minute)] as Minute;
    if (slot.minute !== minute) {
      slot.minute = minute;
      slot.requests = slot.errors = slot.clientErrors = slot.toolCalls = 0;
      slot.ttft.fill(0);
    }
    return slot;
  };
  return {
    /** One finished request: its status, and whether its turn ended in an error after a 200. */
    observe(outcome: {
      status: number;
      error: boolean;
      toolCalls: number;
      ttftMs?: number | undefined;
    }): void {
      const slot = slotFor(Math.floor(now() / 60_000));
      slot.requests++;
      if (outcome.status >= 400 && outcome.status < 500) slot.clientErrors++;
      else if (outcome.status >= 500 || outcome.error) slot.errors++;
      slot.toolCalls += outcome.toolCalls;
      if (outcome.ttftMs !== undefined) {
        const i = TTFT_BOUNDS.findIndex((b) => outcome.ttftMs! <= b);
        (slot.ttft[i] as number)++;
      }
    },
    series(): TrafficSeries {
      const current = Math.floor(now() / 60_000);
      const out: TrafficSeries = {
        t: [],
        requests: [],
        errors: [],
        clientErrors: [],
        errorRate: [],
        clientErrorRate: [],
        toolCalls: [],
        ttftP50: [],
        ttftP99: [],
      };
      for (let m = current - MINUTES + 1; m <= current; m++) {
        const slot = slots[slotIndex(m)] as Minute;
        const live = slot.minute === m;
        out.t.push(m * 60);
        out.requests.push(live ? slot.requests : 0);
        out.errors.push(live ? slot.errors : 0);
        out.clientErrors.push(live ? slot.clientErrors : 0);
        const rate = (n: number) =>
          live && slot.requests > 0 ? Math.round((1000 * n) / slot.requests) / 10 : null;
        out.errorRate.push(rate(slot.errors));
        out.clientErrorRate.push(rate(slot.clientErrors));
        out.toolCalls.push(live ? slot.toolCalls : 0);
        out.ttftP50.push(live ? percentile(slot.ttft, 0.5) : null);
        out.ttftP99.push(live ? percentile(slot.ttft, 0.99) : null);
      }
      return out;
    },
  };
};

export type TrafficStats = ReturnType<typeof createTrafficStats>;
