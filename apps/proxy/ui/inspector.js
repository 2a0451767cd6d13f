// The gateway's request inspector. Plain DOM, no build step; everything the gateway recorded is
// shown with textContent only (model text and prompts are untrusted). Reads /ui/api/*, nothing else.

/** h("tag.class", {attr}, ...children): a DOM element; strings become text nodes. */
const h = (spec, attrs, ...children) => {
  const [tag, ...classes] = spec.split(".");
  const el = document.createElement(tag);
  if (classes.length) el.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
};

const api = async (path) => {
  const res = await fetch(`/ui/api/${path}`, {
    credentials: "same-origin",
    headers: { accept: "application/json" },
  });
  if (res.status === 401) {
    location.href = "/ui/login";
    throw new Error("signed out");
  }
  return res.json();
};

const ms = (n) => (n === undefined || n === null ? "–" : `${n} ms`);
const time = (at) => new Date(at).toLocaleTimeString();
const json = (v) => JSON.stringify(v, null, 2);
const view = () => document.getElementById("view");
const statusClass = (r) => (!r.done ? "running" : r.failed ? "failed" : "ok");

// ---------------------------------------------------------------- overview

const charts = [];
const chart = (title, series, data, unit) => {
  const box = h("div.chart", {}, h("h3", {}, title));
  const width = Math.max(320, Math.min(560, (view().clientWidth || 900) / 2 - 24));
  if (window.uPlot) {
    charts.push(
      new window.uPlot(
        {
          width,
          height: 180,
          scales: { x: { time: true } },
          axes: [{}, { label: unit, size: 60 }],
          // Points as well as lines: a minute with traffic between two without any is one point.
          series: [
            {},
            ...series.map(([label, stroke]) => ({
              label,
              stroke,
              width: 2,
              points: { show: true, size: 5 },
            })),
          ],
        },
        data,
        box,
      ),
    );
  }
  return box;
};

const card = (title, rows) =>
  h(
    "section.card",
    {},
    h("h3", {}, title),
    h(
      "dl",
      {},
      rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]),
    ),
  );

const sum = (xs) => xs.reduce((a, b) => a + (b ?? 0), 0);
const percent = (n, of) => (of ? `${Math.round((1000 * n) / of) / 10} %` : "–");
const uptime = (s) =>
  s >= 86_400
    ? `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`
    : s >= 3600
      ? `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
      : `${Math.floor(s / 60)} min ${s % 60} s`;

async function showOverview() {
  const o = await api("overview");
  for (const c of charts.splice(0)) c.destroy();
  const t = o.traffic;
  const requests = sum(t.requests);
  const routes = o.routes.length
    ? h(
        "table",
        {},
        h(
          "tr",
          {},
          ["route", "backend", "ready", "in flight", "queued", "capacity", "restarts"].map((c) =>
            h("th", {}, c),
          ),
        ),
        o.routes.map((r) =>
          h(
            "tr",
            {},
            [
              r.route,
              r.backend?.type ?? r.backend?.kind ?? "",
              r.ready ? "ready" : "not ready",
              r.inFlight,
              r.queued,
              r.capacity ?? "∞",
              r.restarts,
            ].map((c) => h("td", {}, String(c))),
          ),
        ),
      )
    : h("p.muted", {}, "No model routes: every model goes to the backend above.");
  const windowText = (name, w) => {
    if (!w) return null;
    const span =
      w.windowMinutes >= 1440
        ? `${Math.round(w.windowMinutes / 1440)} d`
        : `${Math.round(w.windowMinutes / 60)} h`;
    const reset = w.resetsAt ? `, resets ${new Date(w.resetsAt * 1000).toLocaleString()}` : "";
    return `${name}${w.windowMinutes ? ` (${span} window)` : ""}: ${w.usedPercent}% used${reset}`;
  };
  const plan = o.plan.length
    ? h(
        "ul",
        { id: "plan-usage" },
        o.plan.map((p) =>
          h(
            "li",
            {},
            h("strong", {}, p.scope),
            " ",
            [windowText("primary", p.primary), windowText("secondary", p.secondary)]
              .filter(Boolean)
              .join(" · "),
          ),
        ),
      )
    : h(
        "p.muted",
        { id: "plan-usage" },
        "Plan usage: not known (the backend has not reported its plan limits).",
      );
  const g = o.gateway;
  view().replaceChildren(
    h("h2", {}, "Overview"),
    h(
      "div.cards",
      {},
      card("Gateway", [
        ["version", g.version],
        ["codex CLI", g.codexVersion ?? "–"],
        ["up", uptime(g.uptimeSeconds)],
        ["codex credentials", o.backend.credentials],
      ]),
      card("Backend", [
        ["name", o.backend.name],
        ["health", o.backend.ready ? "ready" : `not ready${o.backend.detail ? `: ${o.backend.detail}` : ""}`],
        ["active turns", o.backend.activeTurns],
      ]),
      card("Codex app-server pool", [
        ["processes", o.pool.processes],
        ["warm threads / config", o.pool.warmThreads],
        ["turns running", o.pool.inFlight],
        ["queued", o.pool.queued],
        ["restarts", o.pool.restarts],
      ]),
      card("Last hour", [
        ["requests", requests],
        ["gateway / backend failures", percent(sum(t.errors), requests)],
        ["client errors (4xx)", percent(sum(t.clientErrors), requests)],
        ["tool calls", sum(t.toolCalls)],
        [
          "inspector",
          `${o.inspector.requests} kept + ${o.inspector.refused} refused, ${Math.round(o.inspector.bytes / 1024)} KiB${o.inspector.bodies ? "" : " (bodies off)"}`,
        ],
      ]),
      h("section.card", {}, h("h3", {}, "Plan usage"), plan),
    ),
    h("h3", {}, "Routes"),
    routes,
    h(
      "div.charts",
      {},
      chart(
        "Requests and tool calls per minute",
        [
          ["requests", "#2563eb"],
          ["tool calls", "#16a34a"],
          ["failures", "#dc2626"],
          ["client 4xx", "#d97706"],
        ],
        [t.t, t.requests, t.toolCalls, t.errors, t.clientErrors],
        "per min",
      ),
      chart(
        "Time to first token",
        [
          ["p50", "#7c3aed"],
          ["p99", "#ea580c"],
        ],
        [t.t, t.ttftP50, t.ttftP99],
        "ms",
      ),
      chart(
        "Error rate",
        [
          ["gateway / backend %", "#dc2626"],
          ["client 4xx %", "#d97706"],
        ],
        [t.t, t.errorRate, t.clientErrorRate],
        "%",
      ),
    ),
  );
}

// ---------------------------------------------------------------- requests

const filters = {
  id: "",
  surface: "",
  route: "",
  key: "",
  status: "",
  tools: false,
  repairs: false,
  failed: false,
};
/** Sets one filter and redraws the list. */
const setFilter = (name, value) => {
  filters[name] = value;
  showRequests();
};
const query = () => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(filters)) if (v) q.set(k, v === true ? "1" : v);
  return q.toString();
};

const select = (name, values) =>
  h(
    "select",
    { name, "aria-label": name, onchange: (e) => setFilter(name, e.target.value) },
    h("option", { value: "" }, `any ${name}`),
    values.map((v) => h("option", { value: v, selected: filters[name] === v }, v)),
  );
const check = (name, label) =>
  h(
    "label.check",
    {},
    h("input", {
      type: "checkbox",
      name,
      checked: filters[name],
      onchange: (e) => setFilter(name, e.target.checked),
    }),
    label,
  );

/** The rows on screen (the first page, then each "older requests" page), and where the next starts. */
let listed = [];
let olderNext = null;
const toolsCell = (r) =>
  r.toolCalls
    ? `${r.calls.join(", ") || `${r.toolCalls} call(s)`}${r.mode ? ` · ${r.mode}` : ""}`
    : r.mode
      ? `none · ${r.mode}`
      : "";

async function showRequests(more = false) {
  const page = await api(`requests?${query()}${more && olderNext ? `&before=${olderNext}` : ""}`);
  if (!location.hash.startsWith("#requests")) return;
  listed = more ? listed.concat(page.requests) : page.requests;
  olderNext = page.next;
  const { facets } = page;
  const requests = listed;
  const rows = requests.map((r) =>
    h(
      "tr",
      {
        class: `row ${statusClass(r)}`,
        "data-seq": r.seq,
        onclick: () => (location.hash = `#request/${r.seq}`),
      },
      h("td", {}, time(r.at)),
      h("td", {}, r.surface || "–"),
      h("td.mono", {}, `${r.method} ${r.route}`),
      h("td", {}, r.model || ""),
      h("td", {}, r.keyName || ""),
      h("td.status", {}, r.done ? String(r.status) : "…"),
      h("td.tools", {}, toolsCell(r)),
      h(
        "td",
        {},
        [
          r.repairs ? `${r.repairs} repaired` : "",
          r.rejected ? `${r.rejected} rejected` : "",
          r.retries ? `${r.retries} retried` : "",
        ]
          .filter(Boolean)
          .join(", "),
      ),
      h("td", {}, ms(r.timings.firstTokenMs)),
      h("td", {}, ms(r.timings.totalMs)),
      h("td.error", {}, r.error || ""),
    ),
  );
  view().replaceChildren(
    h("h2", {}, "Requests"),
    h(
      "div.filters",
      {},
      h("input", {
        name: "id",
        type: "search",
        placeholder: "request id",
        "aria-label": "request id",
        value: filters.id,
        onchange: (e) => setFilter("id", e.target.value.trim()),
      }),
      select("surface", facets.surface),
      select("route", facets.route),
      select("key", facets.key),
      h("input", {
        name: "status",
        placeholder: "status (200, 4xx…)",
        value: filters.status,
        onchange: (e) => setFilter("status", e.target.value.trim()),
      }),
      check("tools", "had tool calls"),
      check("repairs", "had repairs"),
      check("failed", "failed"),
    ),
    h(
      "table.requests",
      {},
      h(
        "tr",
        {},
        [
          "time",
          "surface",
          "route",
          "model",
          "key",
          "status",
          "tools",
          "repairs",
          "first token",
          "total",
          "error",
        ].map((c) => h("th", {}, c)),
      ),
      rows,
    ),
    rows.length ? "" : h("p.muted", {}, "No requests yet (or none match)."),
    olderNext
      ? h("button.older", { type: "button", onclick: () => showRequests(true) }, "older requests")
      : "",
  );
}

// ---------------------------------------------------------------- one request

const block = (title, ...content) => h("section.step", {}, h("h3", {}, title), ...content);
const pre = (text, cls = "") => h(`pre${cls ? `.${cls}` : ""}`, {}, text);
const fold = (summary, content, open = false) => h("details", { open }, h("summary", {}, summary), content);
const messages = (items) =>
  h(
    "ol.messages",
    {},
    items.map((m) => h("li", {}, h("span.role", {}, m.kind), " ", h("span.text", {}, m.text))),
  );

/** What the model produced in one attempt: its raw text, or in native mode its own calls. */
const modelOutput = (r, a) => {
  const native = r.decisions.filter(
    (d) => d.attempt === a.attempt && d.kind === "call-found" && d.text.startsWith("native call"),
  );
  const out = [];
  if (a.mode === "native" && native.length)
    out.push(
      h("h4", {}, "Native calls the model made"),
      h(
        "ol.native-calls",
        {},
        native.map((d) =>
          h("li", {}, h("span.at", {}, `+${d.atMs} ms`), " ", d.text.slice("native call ".length)),
        ),
      ),
    );
  if (a.raw || a.rawTruncated)
    out.push(
      h("h4", {}, "Raw model text, as streamed"),
      pre(a.raw + (a.rawTruncated ? "\n… [truncated: over the inspector's bound]" : ""), "raw"),
    );
  else if (!native.length)
    out.push(h("p.muted", {}, r.bodies ? "The model wrote no text." : "Model text is not recorded."));
  return out;
};

async function showRequest(seq) {
  const r = await api(`requests/${seq}`);
  if (r.error && !r.seq) {
    view().replaceChildren(h("p", {}, r.error.message));
    return;
  }
  const t = r.timings;
  const head = [
    h(
      "p",
      {},
      h("a", { href: "#requests" }, "← all requests"),
      " · ",
      h(
        "a.export",
        { href: `/ui/api/requests/${r.seq}/export`, download: "" },
        "export as JSON (secrets redacted)",
      ),
    ),
    h("h2", {}, `${r.method} ${r.path} · ${r.done ? r.status : "running"}`),
  ];
  // Refused before any turn ran (a bad key, a request that did not decode): what and why, nothing empty.
  if (r.done && !r.surface && r.attempts.length === 0) {
    const e = r.errorBody?.error ?? r.errorBody ?? {};
    view().replaceChildren(
      ...head,
      h("p.meta", {}, `${time(r.at)} · request id ${r.requestId} · ${ms(t.totalMs)}`),
      block(
        `Refused (HTTP ${r.status}) before any turn ran`,
        h("p.refusal", {}, typeof e.message === "string" ? e.message : r.error || "No error body was kept."),
        h(
          "dl.refusal-fields",
          {},
          [
            ["type", e.type],
            ["code", e.code],
            ["param", e.param],
            ["key", r.keyName || (r.status === 401 ? "none valid" : "")],
          ]
            .filter(([, v]) => v !== undefined && v !== null && v !== "")
            .flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))]),
        ),
        r.errorBody !== undefined ? fold("the error body the client got", pre(json(r.errorBody))) : null,
      ),
    );
    return;
  }
  const parts = [
    ...head,
    h(
      "p.meta",
      {},
      `${time(r.at)} · ${r.surface || "no turn"} · model ${r.model || "–"} · ${r.mode ? `${r.mode} mode · ` : ""}${r.stream ? "stream" : "json"} · ${r.keyName || "no key"} · request id ${r.requestId}`,
    ),
    block(
      "Timings",
      h(
        "dl.timings",
        {},
        [
          "turn started",
          t.turnStartMs,
          "backend accepted (queue + thread start)",
          t.backendStartMs,
          "first token",
          t.firstTokenMs,
          "total",
          t.totalMs,
        ].flatMap((v, i) => (i % 2 ? [h("dd", {}, ms(v))] : [h("dt", {}, v)])),
      ),
    ),
  ];
  if (!r.bodies)
    parts.push(
      h("p.muted", {}, "Bodies are not recorded (PROXY_INSPECTOR_BODIES=off): timings and decisions only."),
    );
  if (r.client) {
    const c = r.client;
    parts.push(
      block(
        "1 · What the client sent",
        h("p", {}, `tool_choice: ${c.choice} · parallel: ${c.parallel} · ${c.tools.length} tool(s)`),
        c.tools.length ? fold("tools", pre(json(c.tools))) : null,
        c.instructions ? fold("instructions", pre(c.instructions)) : null,
        messages(c.messages),
        fold("headers (secrets redacted)", pre(json(c.headers))),
      ),
    );
  }
  for (const a of r.attempts) {
    const req = a.request;
    parts.push(
      block(
        `2 · Backend attempt ${a.attempt}${a.attempt > 0 ? " (corrective turn)" : ""}`,
        req
          ? h(
              "div",
              {},
              h("p", {}, `${req.mode} mode · model ${req.model || "(backend default)"}`),
              fold(
                req.mode === "prompt" ? "instructions with the rendered tool manifest" : "instructions",
                pre(req.instructions),
              ),
              req.nativeTools ? fold("native tool list", pre(json(req.nativeTools))) : null,
              fold(`history (${req.history.length})`, messages(req.history)),
              h("p", {}, h("strong", {}, "input: "), req.input),
            )
          : null,
        ...modelOutput(r, a),
        a.end ? h("p.end", {}, `ended: ${a.end}`) : null,
      ),
    );
    const searches = (r.searches ?? []).filter((s) => s.attempt === a.attempt);
    if (searches.length)
      parts.push(
        block(
          `2 · Hosted web search (attempt ${a.attempt}; run by the model provider, not on this host)`,
          h(
            "ol.searches",
            {},
            searches.map((s) =>
              h("li", {}, h("span.at", {}, `+${s.atMs} ms`), " ", h("code", {}, s.id), " ", s.query),
            ),
          ),
        ),
      );
  }
  parts.push(
    block(
      "3 · The parser's and the gate's decisions",
      r.decisions.length
        ? h(
            "ol.decisions",
            {},
            r.decisions.map((d) => h(`li.${d.kind}`, {}, h("span.at", {}, `+${d.atMs} ms`), " ", d.text)),
          )
        : h("p.muted", {}, "No tool blocks were found."),
    ),
    block(
      "4 · What the client received",
      // A JSON answer that failed was never sent: its client got the error alone.
      r.output.text && !r.stream && r.status >= 400
        ? h("p.muted", {}, "Text the turn produced, not sent (the answer failed):")
        : null,
      r.output.text ? pre(r.output.text, "answer") : null,
      r.output.calls.length
        ? h(
            "ol.calls",
            {},
            r.output.calls.map((c) =>
              h("li", {}, h("strong", {}, c.name), ` (${c.id}) `, h("code", {}, c.arguments)),
            ),
          )
        : null,
      r.finish ? h("p", {}, `finish: ${r.finish}`) : null,
      r.usage ? h("p", {}, `usage: ${json(r.usage)}`) : null,
      r.errorBody !== undefined
        ? h(
            "div.client-error",
            {},
            h("h4", {}, `The error the client got (HTTP ${r.status})`),
            pre(json(r.errorBody)),
          )
        : null,
      r.error && r.errorBody === undefined ? h("p.error", {}, r.error) : null,
    ),
  );
  view().replaceChildren(...parts);
}

// ---------------------------------------------------------------- routing and live updates

let pending;
const refresh = () => {
  const hash = location.hash || "#overview";
  for (const a of document.querySelectorAll("nav a"))
    a.classList.toggle("active", hash.startsWith(a.getAttribute("href")));
  if (hash.startsWith("#request/")) return showRequest(hash.slice("#request/".length));
  if (hash.startsWith("#requests")) return showRequests();
  return showOverview();
};
// Coalesces a burst of events into one refresh of the view on screen.
const live = (event) => {
  const hash = location.hash;
  const seq = JSON.parse(event.data).seq;
  // An open request is redrawn only for its own events (its folds stay as the reader left them).
  if (hash.startsWith("#request/") && hash !== `#request/${seq}`) return;
  clearTimeout(pending);
  pending = setTimeout(refresh, 150);
};

window.addEventListener("hashchange", refresh);
document.addEventListener("DOMContentLoaded", () => {
  refresh();
  const events = new EventSource("/ui/api/stream");
  const badge = document.getElementById("live");
  let opened = false;
  events.onopen = () => {
    // Back after a break (the gateway drops a page that falls behind): what was missed is refetched.
    if (opened) refresh();
    opened = true;
    badge.textContent = "● live";
    badge.classList.add("on");
  };
  events.onerror = () => {
    badge.textContent = "○ reconnecting";
    badge.classList.remove("on");
  };
  events.addEventListener("new", live);
  events.addEventListener("done", live);
});
