import type { Context, Hono } from "hono";
import type { GatewayBackend } from "../backend/gateway-backend.js";
import type { GatewayRouteSpec } from "../http/routes.js";
import { type InspectorAuth, sameOriginPost } from "./inspector-auth.js";
import type { Redactor } from "./redact.js";
import type { RequestLog, RequestRecord } from "./request-log.js";
import type { StaticFile } from "./static-files.js";
import type { TrafficStats } from "./traffic-stats.js";

export const INSPECTOR_PATH = "/ui";
const P = INSPECTOR_PATH;

/** Its routes (its static files aside): the handlers below, the 405 answers and `/openapi.json`. */
export const INSPECTOR_ROUTES = {
  page: {
    method: "GET",
    path: P,
    summary: "The request inspector page (HTML; the login page without a session).",
    public: true,
  },
  loginPage: {
    method: "GET",
    path: `${P}/login`,
    summary: "The inspector's login page (HTML).",
    public: true,
  },
  login: {
    method: "POST",
    path: `${P}/login`,
    summary: "Log in with the admin key (form field `key`): a session cookie.",
    public: true,
  },
  logout: { method: "POST", path: `${P}/logout`, summary: "End the inspector session.", public: true },
  overview: {
    method: "GET",
    path: `${P}/api/overview`,
    summary: "Backend, routes, pool, plan limits and recent traffic.",
    admin: true,
  },
  requests: {
    method: "GET",
    path: `${P}/api/requests`,
    summary: "The recorded requests; `?surface=&route=&key=&status=` (`4xx` too).",
    admin: true,
  },
  request: {
    method: "GET",
    path: `${P}/api/requests/:seq`,
    summary: "One recorded request: attempts, parser decisions, output, usage.",
    admin: true,
  },
  stream: {
    method: "GET",
    path: `${P}/api/stream`,
    summary: "Server-sent events as requests start and end.",
    admin: true,
  },
} as const satisfies Record<string, GatewayRouteSpec>;

/** The routes as served: without an admin key (an open inspector) its API takes no key either. */
export const inspectorRoutes = (open: boolean): GatewayRouteSpec[] =>
  Object.values(INSPECTOR_ROUTES).map((r) => (open ? { ...r, admin: false, public: true } : r));

/** The page may load only its own files and talk only to its own origin. */
const PAGE_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  // same-origin, not no-referrer: with no-referrer Chrome sends `Origin: null` on the login form post.
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
};

export interface InspectorView {
  readonly log: RequestLog;
  readonly stats: TrafficStats;
  readonly auth: InspectorAuth;
  readonly files: ReadonlyMap<string, StaticFile>;
  readonly backend: GatewayBackend;
  readonly bodies: boolean;
  /** The model's text is kept as it streamed; a key it repeats is hidden when it is shown. */
  readonly redactor: Redactor;
  readonly limits: { readonly maxRequests: number; readonly maxBytes: number };
  readonly pool: { readonly processes: number; readonly warmThreads: number };
}

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
  stream: r.stream,
  toolCalls: r.toolCalls,
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
  return (r: RequestRecord): boolean => {
    const row = rowOf(r);
    if (surface && row.surface !== surface) return false;
    if (route && row.route !== route) return false;
    if (key && row.keyName !== key) return false;
    if (
      status &&
      !(/^\dxx$/i.test(status) ? String(row.status)[0] === status[0] : String(row.status) === status)
    )
      return false;
    if (q("tools") === "1" && row.toolCalls === 0) return false;
    if (q("repairs") === "1" && row.repairs === 0 && row.rejected === 0 && row.retries === 0) return false;
    if (q("failed") === "1" && !row.failed) return false;
    return true;
  };
};

const finite = (n: number) => (Number.isFinite(n) ? n : null);

/** Mounts the page, its login and its read-only API under /ui. Nothing here reaches a backend. */
export const mountInspectorRoutes = (app: Hono, view: InspectorView): void => {
  const { log, auth, files } = view;
  const page = (c: Context, name: string, status: 200 | 401 = 200, error = "") => {
    const file = files.get(name);
    if (!file) return c.text("missing page", 500);
    const body = file.body.replace("<!--error-->", error ? `<p class="error" role="alert">${error}</p>` : "");
    return c.body(body, status, { ...PAGE_HEADERS, "content-type": file.type });
  };
  const refuse = (c: Context) =>
    c.json(
      {
        error: {
          message: "The inspector needs the admin key (PROXY_ADMIN_KEY).",
          code: "admin_key_required",
        },
      },
      401,
      { "www-authenticate": 'Bearer realm="inspector"', "cache-control": "no-store" },
    );

  app.get(INSPECTOR_ROUTES.page.path, (c) =>
    auth.allowed(c) ? page(c, "index.html") : page(c, "login.html", 401),
  );
  app.get(INSPECTOR_ROUTES.loginPage.path, (c) => page(c, "login.html"));
  app.post(INSPECTOR_ROUTES.login.path, async (c) => {
    if (!sameOriginPost(c)) return c.text("Cross-site login refused.", 403);
    if (Number(c.req.header("content-length") ?? "0") > 4096) return c.text("Too large.", 413);
    if (auth.open) return c.redirect(INSPECTOR_PATH, 303);
    const form = await c.req.parseBody();
    const key = typeof form.key === "string" ? form.key : "";
    if (auth.login(c, key)) return c.redirect(INSPECTOR_PATH, 303);
    return page(c, "login.html", 401, "That is not the admin key.");
  });
  app.post(INSPECTOR_ROUTES.logout.path, (c) => {
    if (!sameOriginPost(c)) return c.text("Cross-site logout refused.", 403);
    auth.logout(c);
    return c.redirect(`${INSPECTOR_PATH}/login`, 303);
  });
  app.get(`${INSPECTOR_PATH}/static/*`, (c) => {
    const file = files.get(c.req.path.slice(`${INSPECTOR_PATH}/static/`.length));
    if (!file || file.type.startsWith("text/html")) return c.notFound();
    return c.body(file.body, 200, { "content-type": file.type, "x-content-type-options": "nosniff" });
  });

  app.use(`${INSPECTOR_PATH}/api/*`, async (c, next) => {
    if (!auth.allowed(c)) return refuse(c);
    await next();
    c.header("cache-control", "no-store");
  });
  app.get(INSPECTOR_ROUTES.overview.path, (c) => {
    const { backend } = view;
    const r = backend.readiness();
    const routes = backend.routes?.() ?? [];
    return c.json({
      backend: { name: backend.name, ...r, capacity: finite(r.capacity), activeTurns: backend.activeTurns() },
      routes: routes.map((route) => ({ ...route, capacity: finite(route.capacity) })),
      pool: { ...view.pool, inFlight: r.inFlight, queued: r.queued, restarts: r.restarts },
      // Per route with model routes, else the one backend's; empty while no plan is known.
      plan: [
        ...(r.planLimits && routes.length === 0 ? [{ scope: backend.name, ...r.planLimits }] : []),
        ...routes.flatMap((route) => (route.planLimits ? [{ scope: route.route, ...route.planLimits }] : [])),
      ],
      traffic: view.stats.series(),
      inspector: { bodies: view.bodies, requests: log.list().length, bytes: log.bytes(), ...view.limits },
    });
  });
  app.get(INSPECTOR_ROUTES.requests.path, (c) => {
    const keep = matches((name) => c.req.query(name));
    const all = log.list();
    const facets = (f: (r: RequestRecord) => string) =>
      [...new Set(all.map(f).filter((v) => v !== ""))].sort();
    return c.json({
      requests: all.filter(keep).map(rowOf),
      facets: {
        surface: facets((r) => r.surface),
        route: facets((r) => r.route),
        key: facets((r) => r.keyName),
      },
    });
  });
  app.get(INSPECTOR_ROUTES.request.path, (c) => {
    const record = log.get(Number(c.req.param("seq")));
    if (!record) return c.json({ error: { message: "No such request (it may have left the log)." } }, 404);
    const { decisions, client, usage, errorBody } = record;
    // The text is kept in the pieces it arrived in; the page gets it whole.
    const attempts = record.attempts.map((a) => ({ ...a, raw: view.redactor.text(a.raw.join("")) }));
    const output = { text: view.redactor.text(record.output.text.join("")), calls: record.output.calls };
    return c.json({
      ...rowOf(record),
      bodies: view.bodies,
      client,
      attempts,
      decisions,
      output,
      usage,
      errorBody,
    });
  });
  app.get(INSPECTOR_ROUTES.stream.path, (c) => {
    let unsubscribe = () => {};
    let ping: ReturnType<typeof setInterval> | undefined;
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          const send = (frame: string) => {
            // A page that stops reading misses events; it refetches the list on the next one.
            if ((controller.desiredSize ?? 0) > 0) controller.enqueue(encoder.encode(frame));
          };
          send("retry: 2000\n\n");
          unsubscribe = log.subscribe((record, event) =>
            send(`event: ${event}\ndata: ${JSON.stringify(rowOf(record))}\n\n`),
          );
          ping = setInterval(() => send(": ping\n\n"), 15_000);
          c.req.raw.signal.addEventListener("abort", () => {
            unsubscribe();
            clearInterval(ping);
          });
        },
        cancel() {
          unsubscribe();
          clearInterval(ping);
        },
      },
      { highWaterMark: 64 },
    );
    return c.body(body, 200, {
      "content-type": "text/event-stream",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    });
  });
};
