import * as Plot from "@observablehq/plot";
import { parseHTML } from "linkedom";
import type { HttpCell } from "./http-overhead.js";

/** SVG charts rendered server-side with Observable Plot on a linkedom document (no browser). */

const SVG_NS = "http://www.w3.org/2000/svg";

const render = (options: Plot.PlotOptions): string => {
  const { document } = parseHTML("<!doctype html><html><body></body></html>");
  const svg = Plot.plot({
    ...options,
    document: document as unknown as NonNullable<Plot.PlotOptions["document"]>,
  });
  if (!svg.getAttribute("xmlns")) svg.setAttribute("xmlns", SVG_NS);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${svg.outerHTML}\n`;
};

interface Point {
  readonly api: string;
  readonly kind: string;
  readonly connections: number;
  readonly server: "baseline" | "gateway";
  readonly stat: string;
  readonly value: number;
}

const kindOf = (scenario: string) =>
  scenario.includes("json")
    ? "JSON, 200 deltas"
    : scenario.includes("tools")
      ? "SSE, 3 tool calls"
      : "SSE, 200 deltas";

const points = (cells: ReadonlyArray<HttpCell>, pick: (side: HttpCell["baseline"]) => number, stat: string) =>
  cells.flatMap((c) =>
    (["baseline", "gateway"] as const).map(
      (server): Point => ({
        api: c.scenario.startsWith("chat") ? "/v1/chat/completions" : "/v1/responses",
        kind: kindOf(c.scenario),
        connections: c.connections,
        server,
        stat,
        value: pick(c[server]),
      }),
    ),
  );

/**
 * A facet grid (rows: API, columns: workload) of one metric against connections: one colour per
 * server, solid for the first statistic, dashed for the second.
 */
const facetedLines = (data: ReadonlyArray<Point>, y: Plot.ScaleOptions & { label: string }) => {
  const stats = [...new Set(data.map((d) => d.stat))];
  const common = { x: "connections", y: "value", stroke: "server", fx: "kind", fy: "api" } as const;
  return render({
    width: 960,
    height: 480,
    marginRight: 110,
    marginLeft: 60,
    x: { type: "log", label: "connections", ticks: [1, 4, 16, 64], tickFormat: "d", inset: 6 },
    y: { grid: true, ...y },
    fx: { label: null, padding: 0.22 },
    fy: { label: null, tickFormat: (api: string) => api.replace("/v1/", "") },
    color: { domain: ["baseline", "gateway"], range: ["#4e79a7", "#e15759"] },
    marks: [
      Plot.frame({ stroke: "#ddd" }),
      ...stats.map((stat, i) =>
        Plot.line(
          data.filter((d) => d.stat === stat),
          { ...common, z: "server", marker: "circle", ...(i === 0 ? {} : { strokeDasharray: "5,3" }) },
        ),
      ),
      Plot.text(
        data,
        Plot.selectLast({
          ...common,
          z: (d: Point) => `${d.server} ${d.stat}`,
          text: (d: Point) => `${d.server === "baseline" ? "base" : "gw"}${d.stat ? ` ${d.stat}` : ""}`,
          fill: "server",
          stroke: null,
          dx: 5,
          textAnchor: "start",
          fontSize: 9,
        }),
      ),
    ],
  });
};

export const latencyPlot = (cells: ReadonlyArray<HttpCell>): string =>
  facetedLines([...points(cells, (s) => s.p50Ms, "p50"), ...points(cells, (s) => s.p99Ms, "p99")], {
    type: "log",
    label: "latency (ms, log scale; solid p50, dashed p99)",
  });

export const rpsPlot = (cells: ReadonlyArray<HttpCell>): string =>
  facetedLines(
    points(cells, (s) => s.rps, ""),
    { type: "log", label: "requests / s (log scale)" },
  );

export interface ParserBar {
  readonly label: string;
  readonly mbPerSecond: number;
}

export const parserPlot = (bars: ReadonlyArray<ParserBar>): string =>
  render({
    width: 760,
    height: 60 + 28 * bars.length,
    marginLeft: 170,
    marginRight: 50,
    x: { grid: true, label: "MB/s (higher is better)", zero: true },
    y: { label: null, domain: bars.map((b) => b.label) },
    marks: [
      Plot.barX(bars, { x: "mbPerSecond", y: "label", fill: "#4e79a7" }),
      Plot.text(bars, {
        x: "mbPerSecond",
        y: "label",
        text: (d: ParserBar) => d.mbPerSecond.toFixed(1),
        dx: 4,
        textAnchor: "start",
      }),
      Plot.ruleX([0]),
    ],
  });
