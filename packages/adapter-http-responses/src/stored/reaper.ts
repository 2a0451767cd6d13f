import type { ResponseStore } from "@proxy/core/gateway";

const LEASE_EXPIRED =
  "The gateway process running this background response stopped before it finished; send the request again.";

/**
 * Background turns whose process died (their lease ran out) become `failed`, with a closing
 * `response.failed` event for stream followers. Any replica may run this: a turn whose process is
 * alive keeps renewing its lease and is never touched. Returns how many turns were failed.
 */
export const failAbandonedTurns = async (store: ResponseStore, now: number): Promise<number> => {
  let failed = 0;
  for (const response of await store.expiredLeases(now)) {
    const body = {
      ...(response.body as Record<string, unknown>),
      status: "failed",
      error: { code: "server_error", message: LEASE_EXPIRED },
    };
    const done = await store.failExpired(response.id, now, { status: "failed", body, output: [] }, (seq) => [
      { type: "response.failed", sequence_number: seq, response: body },
    ]);
    if (done) failed++;
  }
  return failed;
};
