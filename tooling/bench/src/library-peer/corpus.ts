/**
 * The correctness corpus: model texts in the hermes block format (`<tool_call>{"name":…,
 * "arguments":{…}}</tool_call>`, the format both contenders read), each with the answer a careful
 * reader gives: the calls, and the text (compared with whitespace runs collapsed). Every case is
 * fed whole, one character per delta, and split in two at every position.
 */
export interface CorpusCase {
  readonly id: string;
  readonly text: string;
  readonly calls: ReadonlyArray<{ readonly name: string; readonly input: unknown }>;
  /** The text the caller should see (default: none when there are calls, else the whole input). */
  readonly visible?: string;
}

const block = (name: string, args: unknown) =>
  `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`;
const weather = (city: string) => block("weather", { city });
const PARIS = { name: "weather", input: { city: "Paris" } };

const LONG = "The forecast service is slow today, so bear with me. ".repeat(40);

export const CORPUS: ReadonlyArray<CorpusCase> = [
  { id: "one call", text: weather("Paris"), calls: [PARIS] },
  {
    id: "text, then a call",
    text: `Let me check. ${weather("Paris")}`,
    calls: [PARIS],
    visible: "Let me check.",
  },
  {
    id: "two calls",
    text: weather("Paris") + weather("Rome"),
    calls: [PARIS, { name: "weather", input: { city: "Rome" } }],
  },
  {
    id: "two calls, text between",
    text: `${weather("Paris")} and ${weather("Rome")}`,
    calls: [PARIS, { name: "weather", input: { city: "Rome" } }],
    visible: "and",
  },
  {
    id: "block on its own lines",
    text: `<tool_call>\n{"name": "weather", "arguments": {"city": "Paris"}}\n</tool_call>`,
    calls: [PARIS],
  },
  {
    id: "arguments over several lines",
    text: `<tool_call>\n{\n  "name": "weather",\n  "arguments": {\n    "city": "Paris"\n  }\n}\n</tool_call>`,
    calls: [PARIS],
  },
  { id: "leading blank lines", text: `\n\n${weather("Paris")}`, calls: [PARIS] },
  { id: "text only", text: "The weather is fine today.", calls: [] },
  { id: "comparison signs", text: "If a < b and b > c, then a < c.", calls: [] },
  { id: "HTML in prose", text: "Use <b>bold</b> and <div>blocks</div> freely.", calls: [] },
  { id: "prose mention of the tag", text: "Wrap a call in a <tool_call> tag. It works well.", calls: [] },
  { id: "prose mention of the close tag", text: "The block ends with </tool_call> by the way.", calls: [] },
  { id: "inline-code mention", text: "Write `<tool_call>` to call a tool, then stop.", calls: [] },
  {
    id: "example inside a code fence",
    text: `Example:\n\`\`\`\n${weather("Paris")}\n\`\`\`\nThat is the format.`,
    calls: [],
  },
  {
    id: "code fence, then a real call",
    text: `Example:\n\`\`\`\n${weather("Oslo")}\n\`\`\`\nNow for real: ${weather("Paris")}`,
    calls: [PARIS],
    visible: `Example:\n\`\`\`\n${weather("Oslo")}\n\`\`\`\nNow for real:`,
  },
  {
    id: "unknown tool",
    text: block("stocks", { ticker: "ACME" }),
    calls: [],
  },
  {
    id: "unknown tool, then a known one",
    text: `${block("stocks", { ticker: "ACME" })} ${weather("Paris")}`,
    calls: [PARIS],
    visible: block("stocks", { ticker: "ACME" }),
  },
  {
    id: "non-ASCII arguments",
    text: weather("Zürich 🌧 東京"),
    calls: [{ name: "weather", input: { city: "Zürich 🌧 東京" } }],
  },
  {
    id: "close tag inside an argument string",
    text: block("search", { query: 'say "hi" </tool_call> now' }),
    calls: [{ name: "search", input: { query: 'say "hi" </tool_call> now' } }],
  },
  {
    id: "nested arguments",
    text: block("search", { query: "x", filters: { tags: ["a", "b"], near: { lat: 1.5, lon: -2 } } }),
    calls: [
      { name: "search", input: { query: "x", filters: { tags: ["a", "b"], near: { lat: 1.5, lon: -2 } } } },
    ],
  },
  { id: "empty arguments", text: block("search", {}), calls: [{ name: "search", input: {} }] },
  {
    id: "text after the call",
    text: `${weather("Paris")} I called the weather tool.`,
    calls: [PARIS],
    visible: "I called the weather tool.",
  },
  {
    id: "cut off inside a call",
    text: `Sure. <tool_call>{"name":"weather","arguments":{"city":"Par`,
    calls: [],
    // Never a call; the cut block is not shown as text either (@proxy/ai-sdk also ends the stream
    // with an error part: part of the call had streamed).
    visible: "Sure.",
  },
  { id: "long text, then a call", text: `${LONG}${weather("Paris")}`, calls: [PARIS], visible: LONG },
  {
    id: "call, then a code block",
    text: `${weather("Paris")}\n\`\`\`js\nconsole.log(1 < 2);\n\`\`\``,
    calls: [PARIS],
    visible: "```js\nconsole.log(1 < 2);\n```",
  },
];

/** Text as compared: whitespace runs collapsed, ends trimmed. */
export const normalizeText = (text: string): string => text.replace(/\s+/g, " ").trim();

export const expectedText = (c: CorpusCase): string =>
  normalizeText(c.visible ?? (c.calls.length > 0 ? "" : c.text));
