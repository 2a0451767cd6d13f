/** Small, dependency-free statistics for benchmark samples (all pure). */

const sorted = (xs: ReadonlyArray<number>): number[] => [...xs].filter(Number.isFinite).sort((a, b) => a - b);

/** Linear-interpolated quantile (q in [0, 1]); NaN for no samples. */
export const quantile = (xs: ReadonlyArray<number>, q: number): number => {
  const s = sorted(xs);
  if (s.length === 0) return Number.NaN;
  const pos = (s.length - 1) * Math.min(1, Math.max(0, q));
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  const a = s[lo] as number;
  const b = s[hi] as number;
  return a + (b - a) * (pos - lo);
};

export const median = (xs: ReadonlyArray<number>): number => quantile(xs, 0.5);

export const mean = (xs: ReadonlyArray<number>): number => {
  const s = sorted(xs);
  return s.length === 0 ? Number.NaN : s.reduce((a, b) => a + b, 0) / s.length;
};

/** Rounds for reports; keeps NaN/Infinity as they are so a missing figure stays visible. */
export const round = (x: number, digits = 2): number =>
  Number.isFinite(x) ? Math.round(x * 10 ** digits) / 10 ** digits : x;

/** a / b, NaN when b is 0 or either side is missing. */
export const ratio = (a: number, b: number): number =>
  Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : Number.NaN;

/** Percentile summary of latency samples in ms. */
export interface LatencySummary {
  readonly n: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

export const summarize = (xs: ReadonlyArray<number>): LatencySummary => ({
  n: xs.length,
  p50: quantile(xs, 0.5),
  p90: quantile(xs, 0.9),
  p99: quantile(xs, 0.99),
  max: quantile(xs, 1),
});
