import { f, type Goal, table } from "../report-format.js";
import type { LibraryPeerResult, ThroughputRow } from "./library-peer-bench.js";

/** docs/benchmarks.md's section on `@proxy/ai-sdk` beside `@ai-sdk-tool/parser`, and its goals. */

const OURS = "@proxy/ai-sdk";

const peerOf = (r: LibraryPeerResult): string => r.contenders.find((c) => c !== OURS) ?? "peer";

export const libraryPeerGoals = (r: LibraryPeerResult | undefined): Goal[] => {
  if (r === undefined)
    return [
      {
        goal: "AI SDK middleware: the correctness corpus right under every chunking",
        measured: "n/a",
        met: undefined,
      },
    ];
  const peer = peerOf(r);
  const wrongCases = (name: string) => r.corpus.filter((row) => (row.wrong[name] ?? 0) > 0).length;
  const goals: Goal[] = [
    {
      goal: `AI SDK middleware: every case of the correctness corpus right under every chunking — ${OURS}`,
      measured: `${wrongCases(OURS)} of ${r.corpus.length} cases wrong (${peer}: ${wrongCases(peer)})`,
      met: wrongCases(OURS) === 0,
    },
  ];
  for (const row of r.throughput) {
    const ours = row.byContender[OURS]?.nsPerPush;
    const theirs = row.byContender[peer]?.nsPerPush;
    goals.push({
      goal: `AI SDK middleware: time per delta ≤ ${peer}'s — ${row.workload}, ${row.pushChars} chars per delta`,
      measured: `${f(ours, 0)} vs ${f(theirs, 0)} ns`,
      met: ours === undefined || theirs === undefined ? undefined : ours <= theirs,
    });
  }
  return goals;
};

const wrongCell = (n: number | undefined, of: number) => (n === 0 ? "0" : `**${n ?? "?"}** of ${of}`);

export const libraryPeerSection = (r: LibraryPeerResult | undefined): string => {
  if (r === undefined) return "";
  const peer = peerOf(r);
  const wrongTotal = (name: string) => r.corpus.reduce((sum, row) => sum + (row.wrong[name] ?? 0), 0);
  const wrongCases = (name: string) => r.corpus.filter((row) => (row.wrong[name] ?? 0) > 0).length;
  const chunkings = r.corpus.reduce((sum, row) => sum + row.chunkings, 0);
  const corpus = table(
    ["case", "chunkings", `wrong: ${OURS}`, `wrong: ${peer}`, `${peer}'s first wrong answer`],
    [
      ...r.corpus.map((row) => [
        row.id,
        String(row.chunkings),
        wrongCell(row.wrong[OURS], row.chunkings),
        wrongCell(row.wrong[peer], row.chunkings),
        (row.example[peer] ?? "").replace(/\|/g, "\\|"),
      ]),
      [
        "**all**",
        String(chunkings),
        `${wrongCases(OURS)} cases, ${wrongTotal(OURS)} chunkings`,
        `${wrongCases(peer)} cases, ${wrongTotal(peer)} chunkings`,
        "",
      ],
    ],
  );
  const ours = r.corpus.flatMap((row) => (row.example[OURS] ? [`${row.id}: ${row.example[OURS]}`] : []));
  const speed = (rows: ReadonlyArray<ThroughputRow>) =>
    table(
      [
        "workload",
        "chars per delta",
        "deltas",
        `${OURS} ns / delta`,
        `${peer} ns / delta`,
        "peer / ours",
        `${OURS} MB/s`,
        `${peer} MB/s`,
      ],
      rows.map((row) => {
        const a = row.byContender[OURS];
        const b = row.byContender[peer];
        return [
          row.workload,
          row.pushChars,
          String(row.pushes),
          f(a?.nsPerPush, 0),
          f(b?.nsPerPush, 0),
          a && b ? `× ${f(b.nsPerPush / a.nsPerPush, 1)}` : "n/a",
          f(a?.mbPerSecond, 2),
          f(b?.mbPerSecond, 2),
        ];
      }),
    );
  const large = table(
    ["argument", `${OURS} ms`, `${peer} ms`],
    r.largeArgument.map((row) => [`${row.kib} KiB`, f(row.ms[OURS], 1), f(row.ms[peer], 1)]),
  );
  const memory = table(
    ["each open stream fed", ...r.contenders.map((c) => `${c} heap per stream`)],
    r.memory.rows.map((row) => [
      `${row.what} (${row.chars} chars)`,
      ...r.contenders.map((c) => `${f((row.bytesPerStream[c] ?? Number.NaN) / 1024, 1)} KiB`),
    ]),
  );
  return `## 7. The engine as an AI SDK middleware, beside \`${peer}\`

Measured on ${r.startedAt} by \`${r.command}\` (also a section of \`pnpm bench\`, \`BENCH_ONLY=library-peer\`). Both middlewares wrap the same scripted text-only model with the AI SDK's own \`wrapLanguageModel\` (\`ai\` 7), in one process, and are read through \`doStream\` exactly as \`streamText\` reads them; ours runs with \`stopAfterTools\` and \`dedupe\` off, so both only parse. The model text is in the hermes format (\`<tool_call>{"name":…,"arguments":{…}}</tool_call>\`), which both read. Timed runs alternate the contenders (the order flips each round; ${r.config.rounds} rounds after one untimed stream each; medians), each contender's model wrapped once as a user would. The machine is shared (1-minute load average ${f(r.load[0], 1)} at the start of this section, ${f(r.load[1], 1)} at its end): absolute figures move with the load; the ratios are what to read.

**Correctness corpus.** Each case is fed whole, one code point per delta, and split in two at every code point; an answer is wrong when its calls (names and parsed inputs, in order) or its text (whitespace runs collapsed) differ from the case's. Cases: \`tooling/bench/src/library-peer/corpus.ts\`.

${corpus}
${ours.length > 0 ? `\n${OURS}'s wrong answers: ${ours.join("; ")}.\n` : ""}
**Time per delta and MB/s** through the wrapped model's stream (the middleware's prompt rendering once per stream, then every delta), about ${f(r.throughput[0]?.bytes ?? 0, 0)} bytes per stream:

${speed(r.throughput)}

**The parsers alone**, the same deltas: core's \`createSentinelParser\` (one synchronous \`pushTo\` per delta, into a counting sink) against the peer's hermes stream parser (\`hermesProtocol().createStreamParser\`, a TransformStream over stream parts, which is its only push):

${speed(r.parser ?? [])}

**One long argument** (a single call whose \`query\` argument is this long, in 16-character deltas):

${large}

**Memory per open stream:** ${r.memory.streams} streams of each contender left open after being fed a prefix in 4-character deltas; heap after GC, over the heap before they opened, per stream (the lower of two passes):

${memory}
`;
};
