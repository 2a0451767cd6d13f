/** Time is injected like ids so transcripts are reproducible. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const fixedClock = (epochMs: number): Clock => ({ now: () => epochMs });

export const unixSeconds = (clock: Clock): number => Math.floor(clock.now() / 1000);
