/**
 * Where the tool-heavy time goes: cost per push of each kind of block content, fed in its own
 * o200k token pieces (what codex sends), beside prose. Not part of the test suite; run with
 *   pnpm tsx packages/core/bench/parser-push-cost.ts [kind]
 * `toolHeavy` in parser-bench.ts mixes the first three kinds (plus a short call). Prose here has
 * no `<` or line break inside a token, so it shows the floor of one push: one event, one array.
 */
import type { ToolSpec } from "../src/model/tool-spec.js";
import { createSentinelParser } from "../src/parser/index.js";
import { createArgumentsValidator } from "../src/tools/index.js";
import { codexChunkSizes } from "./codex-chunks.js";
import { feedInPieces, repeatTo } from "./parser-bench.js";

const TOOLS: ReadonlyArray<ToolSpec> = [{ name: "write_file", strict: false }];
const content = repeatTo('line with "quotes", <tags>, {braces} and \\ slashes\n', 2000);
const call = (args: string) => `<tool_call>{"name":"write_file","arguments":${args}}</tool_call>\n`;

const KINDS: Readonly<Record<string, string>> = {
  /** Arguments as a JSON string: two levels of escapes. */
  encodedArguments: call(JSON.stringify(JSON.stringify({ path: "a.md", content }))),
  /** Arguments as an object, content with escapes. */
  objectArguments: call(JSON.stringify({ path: "b.md", content }, null, 2)),
  /** Arguments as an object, content without escapes: the string-run fast path only. */
  plainObjectArguments: call(
    JSON.stringify({ path: "c.md", content: repeatTo("plain words and more ", 2000) }),
  ),
  prose: `${repeatTo("The quick brown fox jumps over the lazy dog; and more words here ", 2000)}\n`,
};

function run(input: string, sizes: ReadonlyArray<number>): number {
  const parser = createSentinelParser({
    tools: new Map(TOOLS.map((t) => [t.name, t])),
    validator: createArgumentsValidator(TOOLS),
  });
  const { events, cpuMicros } = feedInPieces(parser, input, sizes);
  if (events === 0) throw new Error("the parser produced no events");
  return cpuMicros;
}

const only = process.argv[2];
for (const [name, unit] of Object.entries(KINDS)) {
  if (only !== undefined && name !== only) continue;
  const input = repeatTo(unit, 2_000_000);
  const sizes = codexChunkSizes(input);
  let us = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 6; r += 1) us = Math.min(us, run(input, sizes));
  const mbps = (input.length / us).toFixed(1);
  const nsPerPush = ((us * 1000) / sizes.length).toFixed(0);
  const chars = (input.length / sizes.length).toFixed(2);
  console.log(
    `${name.padEnd(22)} ${mbps.padStart(6)} MB/s  ${nsPerPush.padStart(4)} ns/push  ${chars} chars/push`,
  );
}
