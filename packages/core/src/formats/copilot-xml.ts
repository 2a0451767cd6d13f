/**
 * Obsidian Copilot's legacy `<use_tool>` rules (v3.0–3.1.5 `parseXMLToolCalls`), re-implemented without its backtracking regexes so
 * a 1 MiB block stays linear: `<name>` is trimmed; every other child element becomes a key;
 * scalars stay strings; JSON array/object text is parsed; `<item>` lists; nested tags make an
 * object; empty gives `""` (`[]` for chatHistory/salientTerms); no entity decoding.
 */

type XmlValue =
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "json"; readonly text: string }
  | { readonly kind: "list"; readonly items: ReadonlyArray<XmlValue> }
  | { readonly kind: "object"; readonly entries: ReadonlyMap<string, XmlValue> };

const NAME_OPEN = "<name>";
const NAME_CLOSE = "</name>";
const ITEM_OPEN = "<item>";
const ITEM_CLOSE = "</item>";
/** Longer tag names are not matched (keeps the closing-tag index linear). */
const MAX_TAG_NAME = 256;
const EMPTY_LIST_PARAMS: ReadonlySet<string> = new Set(["chatHistory", "salientTerms"]);

/** The trimmed text of the first `<name>…</name>`, if any (also of an unfinished block). */
export function useToolName(content: string): string | undefined {
  const open = content.indexOf(NAME_OPEN);
  const close = open < 0 ? -1 : content.indexOf(NAME_CLOSE, open + NAME_OPEN.length);
  const name = close < 0 ? "" : content.slice(open + NAME_OPEN.length, close).trim();
  return name === "" ? undefined : name;
}

/** Name and JSON arguments (keys in appearance order) of one block's content, or undefined without a name. */
export function parseUseToolContent(content: string): { name: string; arguments: string } | undefined {
  const open = content.indexOf(NAME_OPEN);
  const close = open < 0 ? -1 : content.indexOf(NAME_CLOSE, open + NAME_OPEN.length);
  if (close < 0) return undefined;
  const name = content.slice(open + NAME_OPEN.length, close).trim();
  if (name === "") return undefined;
  const rest = content.slice(0, open) + content.slice(close + NAME_CLOSE.length);
  const params = new Map<string, XmlValue>();
  for (const [tag, inner] of matchElements(rest)) {
    const key = tag.trim();
    if (key !== "") params.set(key, parseValue(inner.trim(), key));
  }
  return { name, arguments: serialize({ kind: "object", entries: params }) };
}

function parseValue(content: string, paramName: string | undefined): XmlValue {
  if (content === "") {
    return paramName !== undefined && EMPTY_LIST_PARAMS.has(paramName)
      ? { kind: "list", items: [] }
      : { kind: "string", value: "" };
  }
  if (!hasTag(content)) {
    const first = content[0];
    const last = content[content.length - 1];
    if ((first === "[" && last === "]") || (first === "{" && last === "}")) {
      try {
        JSON.parse(content);
        return { kind: "json", text: content };
      } catch {
        // not JSON after all: Copilot keeps the text
      }
    }
    return { kind: "string", value: content };
  }
  const items = matchItems(content);
  if (items.length > 0) return { kind: "list", items: items.map((item) => parseValue(item, undefined)) };
  const entries = new Map<string, XmlValue>();
  for (const [tag, inner] of matchElements(content))
    entries.set(tag.trim(), parseValue(inner.trim(), undefined));
  return entries.size > 0 ? { kind: "object", entries } : { kind: "string", value: content };
}

/** `/<[^>]+>/.test(text)` in one pass. */
function hasTag(text: string): boolean {
  let lt = text.indexOf("<");
  while (lt >= 0) {
    const gt = text.indexOf(">", lt + 1);
    if (gt < 0) return false;
    if (gt > lt + 1) return true;
    lt = text.indexOf("<", lt + 1);
  }
  return false;
}

/** `<item>…</item>` matches (first close after each open), inner `<item>` tags removed, trimmed. */
function matchItems(text: string): string[] {
  const items: string[] = [];
  let from = 0;
  for (;;) {
    const open = text.indexOf(ITEM_OPEN, from);
    if (open < 0) break;
    const close = text.indexOf(ITEM_CLOSE, open + ITEM_OPEN.length);
    if (close < 0) break;
    items.push(
      text
        .slice(open + ITEM_OPEN.length, close)
        .replaceAll(ITEM_OPEN, "")
        .trim(),
    );
    from = close + ITEM_CLOSE.length;
  }
  return items;
}

/**
 * All matches of `/<([^>]+)>([\s\S]*?)<\/\1>/g`, in order: [tag, inner]. Closing tags are indexed
 * once by name, with a per-name cursor, instead of searching from every `<`.
 */
function matchElements(text: string): Array<[string, string]> {
  const closers = new Map<string, { positions: number[]; cursor: number }>();
  let closerGt = -1;
  for (let at = text.indexOf("</"); at >= 0; at = text.indexOf("</", at + 1)) {
    if (closerGt < at + 2) closerGt = text.indexOf(">", at + 2);
    const gt = closerGt;
    if (gt < 0) break;
    if (gt === at + 2 || gt - at - 2 > MAX_TAG_NAME) continue;
    const tag = text.slice(at + 2, gt);
    const entry = closers.get(tag);
    if (entry) entry.positions.push(at);
    else closers.set(tag, { positions: [at], cursor: 0 });
  }
  const out: Array<[string, string]> = [];
  let gt = -1;
  let lt = text.indexOf("<");
  while (lt >= 0) {
    if (gt <= lt) gt = text.indexOf(">", lt + 1);
    if (gt < 0) break;
    const tag = text.slice(lt + 1, gt);
    const entry = gt > lt + 1 && tag.length <= MAX_TAG_NAME ? closers.get(tag) : undefined;
    let close = -1;
    if (entry) {
      while (entry.cursor < entry.positions.length && (entry.positions[entry.cursor] as number) <= gt) {
        entry.cursor += 1;
      }
      close = entry.positions[entry.cursor] ?? -1;
    }
    if (close < 0) {
      lt = text.indexOf("<", lt + 1);
      continue;
    }
    out.push([tag, text.slice(gt + 1, close)]);
    lt = text.indexOf("<", close + tag.length + 3);
  }
  return out;
}

function serialize(value: XmlValue): string {
  switch (value.kind) {
    case "string":
      return JSON.stringify(value.value);
    case "json":
      return value.text;
    case "list":
      return `[${value.items.map(serialize).join(",")}]`;
    case "object": {
      const parts: string[] = [];
      for (const [key, v] of value.entries) parts.push(`${JSON.stringify(key)}:${serialize(v)}`);
      return `{${parts.join(",")}}`;
    }
  }
}
