import type { Context, Hono, MiddlewareHandler } from "hono";
import { type InspectorAuth, sameOrigin } from "./inspector-auth.js";
import { createLiveEvents } from "./live-events.js";
import type { InspectorBackend, InspectorRouteSpec } from "./ports.js";
import type { Redactor } from "./redact.js";
import type { RequestLog, RequestRecord } from "./request-log.js";
import { pageOf, rowOf } from "./request-rows.js";
import type { StaticFile } from "./static-files.js";
import type { TrafficStats } from "./traffic-stats.js";

export const INSPECTOR_PATH = "/ui";
const P = INSPECTOR_PATH;
export const isInspectorPath = (path: string) => path === P || path.startsWith(`${P}/`);

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
    summary:
      "The recorded requests, newest first, a page at a time: `?surface=&route=&key=&status=` (`4xx` too), `?id=` (a request id, or its start), `?limit=` (at most 500) and `?before=` (the `next` of the previous page).",
    admin: true,
  },
  request: {
    method: "GET",
    path: `${P}/api/requests/:seq`,
    summary: "One recorded request: attempts, parser decisions, output, usage.",
    admin: true,
  },
  export: {
    method: "GET",
    path: `${P}/api/requests/:seq/export`,
    summary: "One recorded request as a JSON file (secrets redacted), for a bug report.",
    admin: true,
  },
  stream: {
    method: "GET",
    path: `${P}/api/stream`,
    summary: "Server-sent events as requests start and end.",
    admin: true,
  },
} as const satisfies Record<string, InspectorRouteSpec>;

/** The routes as served: without an admin key (an open inspector) its API takes no key either. */
export const inspectorRoutes = (open: boolean): InspectorRouteSpec[] =>
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
  readonly backend: InspectorBackend;
  /** The readiness detail the backend reports while it has no credentials (codex not logged in). */
  readonly notLoggedIn?: string | undefined;
  readonly bodies: boolean;
  /** Everything served is redacted on the way out: records keep text as it came. */
  readonly redactor: Redactor;
  readonly limits: { readonly maxRequests: number; readonly maxBytes: number };
  readonly pool: { readonly processes: number; readonly warmThreads: number };
  readonly about: InspectorAbout;
}

/** What the overview says about the gateway itself. */
export interface InspectorAbout {
  readonly version: string;
  /** The codex CLI's version, when the backend is codex and it is known. */
  readonly codexVersion?: string | undefined;
  /** Epoch milliseconds the gateway started. */
  readonly startedAt: number;
}

/** Characters of an answer redacted at once; a bigger one goes out in slices of this size. */
const ANSWER_SLICE = 256 * 1024;
/** Bytes of a login form read at most (a key is far shorter); more is refused unread. */
export const MAX_LOGIN_BODY = 8 * 1024;

const finite = (n: number) => (Number.isFinite(n) ? n : null);

/** The form body of a request, up to `max` bytes, chunked or not; undefined when it is longer. */
const boundedForm = async (c: Context, max: number): Promise<URLSearchParams | undefined> => {
  if (Number(c.req.header("content-length") ?? "0") > max) return undefined;
  const reader = c.req.raw.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = await reader?.read();
    if (next === undefined || next.done) break;
    size += next.value.byteLength;
    if (size > max) {
      await reader?.cancel();
      return undefined;
    }
    chunks.push(next.value);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
};

/** Mounts the page, its login and its read-only API under /ui. Nothing here reaches a backend. */
export const mountInspectorRoutes = (app: Hono, view: InspectorView): void => {
  const { log, auth, files, redactor } = view;
  const live = createLiveEvents(log, (record) => redactor.text(JSON.stringify(rowOf(record))));
  /** A JSON answer with every configured key redacted, wherever in it. */
  const answer = (c: Context, value: unknown, headers: Record<string, string> = {}) => {
    const json = JSON.stringify(value);
    const type = { "content-type": "application/json", ...headers };
    if (json.length <= ANSWER_SLICE) return c.body(redactor.text(json), 200, type);
    // A big record is redacted and sent a slice at a time, the loop free between slices.
    const pieces = redactor.pieces(json, ANSWER_SLICE);
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await new Promise(setImmediate);
        const next = pieces.next();
        if (next.done) controller.close();
        else controller.enqueue(encoder.encode(next.value));
      },
    });
    return c.body(body, 200, type);
  };
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

  // Same-origin only, before anything else under /ui (PROXY_CORS_ORIGINS is for the API).
  const ownPageOnly: MiddlewareHandler = async (c, next) => {
    if (!sameOrigin(c))
      return c.json(
        {
          error: {
            message:
              "The inspector answers only its own page (same origin); PROXY_CORS_ORIGINS does not apply to /ui.",
            code: "cross_origin_refused",
          },
        },
        403,
        { "cache-control": "no-store" },
      );
    return next();
  };
  app.use(INSPECTOR_PATH, ownPageOnly);
  app.use(`${INSPECTOR_PATH}/*`, ownPageOnly);

  app.get(INSPECTOR_ROUTES.page.path, (c) =>
    auth.allowed(c) ? page(c, "index.html") : page(c, "login.html", 401),
  );
  app.get(INSPECTOR_ROUTES.loginPage.path, (c) => page(c, "login.html"));
  app.post(INSPECTOR_ROUTES.login.path, async (c) => {
    if (auth.open) return c.redirect(INSPECTOR_PATH, 303);
    const form = await boundedForm(c, MAX_LOGIN_BODY);
    if (form === undefined)
      return c.text(`The login form is larger than ${MAX_LOGIN_BODY} bytes.`, 413, { connection: "close" });
    if (auth.login(c, form.get("key") ?? "")) return c.redirect(INSPECTOR_PATH, 303);
    return page(c, "login.html", 401, "That is not the admin key.");
  });
  app.post(INSPECTOR_ROUTES.logout.path, (c) => {
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
    const counts = log.counts();
    return answer(c, {
      gateway: {
        version: view.about.version,
        ...(view.about.codexVersion ? { codexVersion: view.about.codexVersion } : {}),
        startedAt: view.about.startedAt,
        uptimeSeconds: Math.round((Date.now() - view.about.startedAt) / 1000),
      },
      backend: {
        name: backend.name,
        ...r,
        capacity: finite(r.capacity),
        activeTurns: backend.activeTurns(),
        credentials:
          view.notLoggedIn !== undefined && r.detail === view.notLoggedIn
            ? "not logged in"
            : "no problem known",
      },
      routes: routes.map((route) => ({ ...route, capacity: finite(route.capacity) })),
      pool: { ...view.pool, inFlight: r.inFlight, queued: r.queued, restarts: r.restarts },
      // Per route with model routes, else the one backend's; empty while no plan is known.
      plan: [
        ...(r.planLimits && routes.length === 0 ? [{ scope: backend.name, ...r.planLimits }] : []),
        ...routes.flatMap((route) => (route.planLimits ? [{ scope: route.route, ...route.planLimits }] : [])),
      ],
      traffic: view.stats.series(),
      inspector: {
        bodies: view.bodies,
        requests: counts.kept,
        refused: counts.refused,
        bytes: log.bytes(),
        ...view.limits,
        live: live.stats(),
      },
    });
  });
  app.get(INSPECTOR_ROUTES.requests.path, (c) => {
    const all = log.list();
    const { page, next } = pageOf(all, (name) => c.req.query(name));
    const facets = (f: (r: RequestRecord) => string) =>
      [...new Set(all.map(f).filter((v) => v !== ""))].sort();
    return answer(c, {
      requests: page.map(rowOf),
      next,
      facets: {
        surface: facets((r) => r.surface),
        route: facets((r) => r.route),
        key: facets((r) => r.keyName),
      },
    });
  });
  const detailOf = (record: RequestRecord) => {
    const { decisions, searches, client, usage, errorBody } = record;
    // The text is kept in the pieces it arrived in; the page gets it whole.
    const attempts = record.attempts.map((a) => ({ ...a, raw: a.raw.join("") }));
    const output = { text: record.output.text.join(""), calls: record.output.calls };
    return {
      ...rowOf(record),
      bodies: view.bodies,
      client,
      attempts,
      decisions,
      searches,
      output,
      usage,
      errorBody,
    };
  };
  const missing = (c: Context) =>
    c.json({ error: { message: "No such request (it may have left the log)." } }, 404);
  app.get(INSPECTOR_ROUTES.request.path, (c) => {
    const record = log.get(Number(c.req.param("seq")));
    return record ? answer(c, detailOf(record)) : missing(c);
  });
  app.get(INSPECTOR_ROUTES.export.path, (c) => {
    const record = log.get(Number(c.req.param("seq")));
    if (!record) return missing(c);
    const name = `request-${record.requestId.replace(/[^\w.-]/g, "_").slice(0, 64) || record.seq}.json`;
    return answer(
      c,
      { exported: new Date().toISOString(), gateway: view.about.version, request: detailOf(record) },
      { "content-disposition": `attachment; filename="${name}"` },
    );
  });
  app.get(INSPECTOR_ROUTES.stream.path, (c) => live.stream(c));
};
