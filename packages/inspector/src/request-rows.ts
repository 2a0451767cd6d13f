import type { RequestRecord } from "./request-log.js";

/** A record without its bodies: one row of the requests view and one live event. */
export const rowOf = (r: RequestRecord) => ({
  seq: r.seq,
  requestId: r.requestId,
  at: r.at,
  method: r.method,
  path: r.path,
  route: r.route,
  surface: r.surface,
  keyName: r.keyName,
  status: r.status,
  done: r.done,
  model: r.model,
  mode: r.mode,
  stream: r.stream,
  toolCalls: r.toolCalls,
  calls: r.calls,
  repairs: r.repairs,
  rejected: r.rejected,
  retries: r.retries,
  finish: r.finish,
  error: r.error,
  failed: r.done && (r.status >= 400 || r.error !== ""),
  timings: r.timings,
});

/** The requests view's filters (the same query parameters the page sends). */
const matches = (q: (name: string) => string | undefined) => {
  const surface = q("surface");
  const route = q("route");
  const key = q("key");
  const status = q("status");
  const id = q("id")?.trim();
  const statusOk = (n: number) =>
    !status || (/^\dxx$/i.test(status) ? String(n)[0] === status[0] : String(n) === status);
  return (r: RequestRecord): boolean =>
    (!surface || r.surface === surface) &&
    (!route || r.route === route) &&
    (!key || r.keyName === key) &&
    statusOk(r.status) &&
    (!id || r.requestId.startsWith(id)) &&
    (q("tools") !== "1" || r.toolCalls > 0) &&
    (q("repairs") !== "1" || r.repairs + r.rejected + r.retries > 0) &&
    (q("failed") !== "1" || (r.done && (r.status >= 400 || r.error !== "")));
};

const DEFAULT_PAGE = 100;
const MAX_PAGE = 500;

/** One page of the requests view, newest first: `?limit=` rows before `?before=`, and the next page's start. */
export const pageOf = (all: ReadonlyArray<RequestRecord>, q: (name: string) => string | undefined) => {
  const keep = matches(q);
  const limit = Math.min(MAX_PAGE, Math.max(1, Number(q("limit")) || DEFAULT_PAGE));
  const before = Number(q("before")) || Number.POSITIVE_INFINITY;
  const page: RequestRecord[] = [];
  let next: number | null = null;
  for (const r of all) {
    if (r.seq >= before || !keep(r)) continue;
    if (page.length === limit) {
      next = (page.at(-1) as RequestRecord).seq;
      break;
    }
    page.push(r);
  }
  return { page, next };
};
