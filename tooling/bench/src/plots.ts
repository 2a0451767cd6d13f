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
  readonly server: string;
  readonly value: number;
}

const kindOf = (scenario: string) =>
  scenario.includes("json")
    ? "JSON, 200 deltas"
    : scenario.includes("tools")
      ? "SSE, 3 tool calls"
      : "SSE, 200 deltas";

const points = (cells: ReadonlyArray<HttpCell>, pick: (side: HttpCell["baseline"]) => number, suffix = "") =>
  cells.flatMap((c) =>
    (["baseline", "gateway"] as const).map((server) => ({
      api: c.scenario.startsWith("chat") ? "/v1/chat/completions" : "/v1/responses",
      kind: kindOf(c.scenario),
      connections: c.connections,
      server: `${server}${suffix}`,
      value: pick(c[server]),
    })),
  );

/** A facet grid (rows: API, columns: workload) of one metric against connections, per server. */
const facetedLines = (data: ReadonlyArray<Point>, y: Plot.ScaleOptions & { label: string }) =>
  render({
    width: 900,
    height: 460,
    marginRight: 90,
    marginLeft: 60,
    x: { type: "log", label: "connections", ticks: [1, 4, 16, 64], tickFormat: "d" },
    y: { grid: true, ...y },
    fx: { label: null },
    fy: { label: null },
    color: { domain: [...new Set(data.map((d) => d.server))], scheme: "Tableau10" },
    marks: [
      Plot.frame({ stroke: "#ddd" }),
      Plot.line(data, {
        x: "connections",
        y: "value",
        stroke: "server",
        fx: "kind",
        fy: "api",
        marker: "circle",
      }),
      Plot.text(
        data,
        Plot.selectLast({
          x: "connections",
          y: "value",
          z: "server",
          text: "server",
          fill: "server",
          fx: "kind",
          fy: "api",
          dx: 6,
          textAnchor: "start",
          fontSize: 9,
        }),
      ),
    ],
  });

export const latencyPlot = (cells: ReadonlyArray<HttpCell>): string =>
  facetedLines([...points(cells, (s) => s.p50Ms, " p50"), ...points(cells, (s) => s.p99Ms, " p99")], {
    type: "log",
    label: "latency (ms, log)",
  });

export const rpsPlot = (cells: ReadonlyArray<HttpCell>): string =>
  facetedLines(
    points(cells, (s) => s.rps),
    { label: "requests / s", zero: true },
  );

export interface ParserBar {
  readonly label: string;
  readonly mbPerSecond: number;
}

export const parserPlot = (bars: ReadonlyArray<ParserBar>): string =>
  render({
    width: 760,
    height: 60 + 28 * bars.length,
    marginLeft: 220,
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
