import fc from "fast-check";

/**
 * Generated assistant messages with the result a correct parser must produce. A message is a
 * list of segments; `expected` applies the whitespace policy (drop at message start and right
 * after a call) to the text segments and lists the calls in order.
 */
export type Expected =
  | { kind: "text"; text: string }
  | { kind: "call"; name: string; arguments: string; format: string };

export interface GeneratedMessage {
  readonly message: string;
  readonly expected: ReadonlyArray<Expected>;
}

type Segment =
  | { kind: "text"; text: string; fenced?: boolean }
  | { kind: "call"; raw: string; name: string; arguments: string; format: "json" | "xml" };

/** Text that never forms a tag: near misses, `<`, braces, quotes, escapes, unicode incl. astral. */
const textToken = fc.constantFrom(
  "Hello",
  "world",
  " ",
  "  ",
  "\n",
  "\t",
  "<",
  ">",
  "<<",
  "<b>",
  "a<b",
  "{",
  "}",
  '"',
  "\\",
  "é",
  "中文",
  "😀",
  "\u00a0",
  "<tool_cal",
  "<tool_calls>",
  "</tool_call>",
  "<tool_call x",
  "<tool_call >",
  "<use_too",
  "<use_tools>",
  "</use_tool>",
  "<t",
  "<u",
  '{"name":"search","arguments":"{}"}',
);

const text = fc.array(textToken, { minLength: 1, maxLength: 8 }).map((t) => t.join(""));

/** String content that stresses JSON inside JSON: sentinels, braces, quotes, escapes, astral. */
const trickyString = fc
  .array(
    fc.constantFrom(
      "a",
      "Z",
      " ",
      "<",
      ">",
      "}",
      "{",
      "]",
      '"',
      "\\",
      '\\"',
      "\n",
      "\t",
      "/",
      "é",
      "😀",
      "𝄞",
      "</tool_call>",
      "<tool_call>",
      "</use_tool>",
      "```",
      "\u2028",
      "\u0000",
    ),
    { maxLength: 12 },
  )
  .map((t) => t.join(""));

const jsonLeaf = fc.oneof(
  trickyString,
  fc.integer({ min: -1e6, max: 1e6 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);

// Prototype keys are refused in every mode (see tools/fail-closed.test.ts): near misses only here.
const key = fc.oneof(
  trickyString,
  fc.constantFrom("name", "arguments", "q", "path", "content", "__proto", "proto__"),
);

const { value: jsonValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    jsonLeaf,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(key, tie("value"), { maxKeys: 3 }),
  ),
}));

/** The arguments object (never empty here; empty arguments have their own renderings). */
const argsObject = fc.dictionary(key, jsonValue, { minKeys: 1, maxKeys: 4 });

/** Soft tools without a schema, so generated arguments never draw a schema warning. */
const SOFT_TOOLS = ["write_file", "get_time", "webSearch"] as const;
const ws = fc.constantFrom("", " ", "\n", "\n  ");

/** A `<tool_call>` block: string or object arguments, name first or last, optional whitespace. */
const jsonCall = fc
  .record({
    name: fc.constantFrom(...SOFT_TOOLS),
    args: argsObject,
    form: fc.constantFrom("string", "object"),
    indent: fc.constantFrom(0, 1, 2),
    argsFirst: fc.boolean(),
    pad: fc.tuple(ws, ws, ws),
  })
  .map(({ name, args, form, indent, argsFirst, pad }): Segment => {
    const argsText = form === "string" ? JSON.stringify(args) : JSON.stringify(args, null, indent);
    const argsJson = form === "string" ? JSON.stringify(argsText) : argsText;
    const nameMember = `"name":${pad[1]}${JSON.stringify(name)}`;
    const argsMember = `"arguments":${pad[1]}${argsJson}`;
    const members = argsFirst ? [argsMember, nameMember] : [nameMember, argsMember];
    const raw = `<tool_call>${pad[0]}{${members.join(`,${pad[1]}`)}}${pad[2]}</tool_call>`;
    return { kind: "call", raw, name, arguments: argsText, format: "json" };
  });

const emptyCall = fc
  .constantFrom(
    '{"name":"get_time"}',
    '{"name":"get_time","arguments":""}',
    '{"name":"get_time","arguments":{}}',
    '{"name": "get_time", "arguments": "{ }"}',
  )
  .map(
    (body): Segment => ({
      kind: "call",
      raw: `<tool_call>${body}</tool_call>`,
      name: "get_time",
      arguments: "{}",
      format: "json",
    }),
  );

const xmlValue = fc
  .array(fc.constantFrom("a", "b", "1", " ", "é", "😀", "-", "&amp;"), { minLength: 1, maxLength: 6 })
  .map((t) => t.join(""));
const xmlCall = fc
  .dictionary(fc.constantFrom("query", "notePath", "k"), xmlValue, { maxKeys: 3 })
  .map((params): Segment => {
    const body = Object.entries(params)
      .map(([k, v]) => `<${k}>${v}</${k}>`)
      .join("\n");
    const args: Record<string, string> = {};
    for (const [k, v] of Object.entries(params)) args[k] = v.trim();
    return {
      kind: "call",
      raw: `<use_tool>\n<name>localSearch</name>\n${body}\n</use_tool>`,
      name: "localSearch",
      arguments: JSON.stringify(args),
      format: "xml",
    };
  });

/** A valid call inside a code fence: it is text. */
const fenced = fc
  .tuple(fc.constantFrom("```", "~~~", "```json", "  ````"), fc.oneof(jsonCall, xmlCall))
  .map(([fence, call]): Segment => {
    const marker = fence.trim().replace("json", "");
    return {
      kind: "text",
      text: `\n${fence}\n${call.kind === "call" ? call.raw : ""}\n${marker}\n`,
      fenced: true,
    };
  });

const segment = fc.oneof(
  { weight: 4, arbitrary: text.map((t): Segment => ({ kind: "text", text: t })) },
  { weight: 3, arbitrary: jsonCall },
  { weight: 1, arbitrary: emptyCall },
  { weight: 1, arbitrary: xmlCall },
  { weight: 1, arbitrary: fenced },
);

/** True when adjacent plain-text segments accidentally spell an opening tag (fenced text may). */
const formsTag = (segments: ReadonlyArray<Segment>) =>
  /<tool_call>|<use_tool>/.test(
    segments.map((s) => (s.kind === "text" && !s.fenced ? s.text : " ")).join(""),
  );

const isWs = (c: string) => /\s/.test(c);

/** Messages of text, 0–5 calls, fences and near misses, with the expected parse. */
export const generatedMessage = (maxSegments = 8): fc.Arbitrary<GeneratedMessage> =>
  fc
    .array(segment, { maxLength: maxSegments })
    .filter((segments) => segments.filter((s) => s.kind === "call").length <= 5 && !formsTag(segments))
    .map((segments) => {
      const expected: Expected[] = [];
      let dropping = true;
      for (const s of segments) {
        if (s.kind === "call") {
          expected.push({ kind: "call", name: s.name, arguments: s.arguments, format: s.format });
          dropping = true;
          continue;
        }
        let t = s.text;
        if (dropping) {
          let i = 0;
          while (i < t.length && isWs(t[i] as string)) i += 1;
          t = t.slice(i);
          if (t.length > 0) dropping = false;
        }
        const last = expected[expected.length - 1];
        if (t.length === 0) continue;
        if (last?.kind === "text") last.text += t;
        else expected.push({ kind: "text", text: t });
      }
      return { message: segments.map((s) => (s.kind === "call" ? s.raw : s.text)).join(""), expected };
    });

/** Blocks a correct parser must reject or repair: garbage, unknown tools, strict tools, cut-offs. */
const hostileBlock = fc.oneof(
  fc.constantFrom(
    '<tool_call>{"name":"search","arguments":"{: nope}"}</tool_call>',
    '<tool_call>{"name":"search","arguments":"{\\"q\\":\\"a\\",}"}</tool_call>',
    '<tool_call>{"name":"search","arguments":"{"q":"x"}"}</tool_call>',
    '<tool_call>{"name":"nope","arguments":"{}"}</tool_call>',
    '<tool_call>{"name":"exact","arguments":"{\\"n\\":1}"}</tool_call>',
    '<tool_call>{"name":"exact","arguments":"{\\"n\\":\\"x\\"}"}</tool_call>',
    '<tool_call>{"name":"exact","arguments":"{\\"n\\":1,}"}</tool_call>',
    '<tool_call>{"name":"write_file","arguments":{"content":"a\nb"}}</tool_call>',
    '<tool_call>{"name":"write_file","arguments":"{\\"content\\":\\"abc',
    "<tool_call>{{{ garbage </tool_call>",
    "<tool_call>not json at all</tool_call>",
    "<use_tool><name>nope</name></use_tool>",
    "<use_tool><query>x</query></use_tool>",
    "<use_tool><name>exact</name><n>1</n></use_tool>",
    "<use_tool><name>readNote</name><notePath>a",
  ),
  fc
    .tuple(fc.constantFrom(...SOFT_TOOLS), trickyString)
    .map(
      ([name, junk]) =>
        `<tool_call>{"name":"${name}","arguments":${JSON.stringify(`{"k":${junk}`)}}</tool_call>`,
    ),
  fc
    .tuple(fc.constantFrom(...SOFT_TOOLS), trickyString)
    .map(([name, junk]) => `<tool_call>{"name":"${name}","arguments":{"k":${junk}}}</tool_call>`),
);

/** Any mix of valid and hostile content, for split invariance and the wire invariants. */
export const hostileMessage: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      generatedMessage(3).map((m) => m.message),
      hostileBlock,
      text,
    ),
    { maxLength: 5 },
  )
  .map((parts) => parts.join(""));
