/**
 * The pages an answer cites, read from its text: a hosted search's results stay with the model
 * provider (codex's search item carries the query only), so the pages a surface shows as results
 * and citations are the links the answer wrote. Markdown links `[title](url)` give a title; bare
 * `https://…` URLs give none. Offsets are UTF-16 code units into `text` (JavaScript string indices).
 */
export interface CitedLink {
  readonly url: string;
  /** The link's text, or the URL's host for a bare URL. */
  readonly title: string;
  /** Where the citing text starts and ends in the answer (the link as written). */
  readonly start: number;
  readonly end: number;
}

// One pass over the text: a markdown link, or a bare http(s) URL not inside one.
const LINK = /\[([^\]\n]{1,500})\]\((https?:\/\/[^\s)]{1,2000})\)|(https?:\/\/[^\s<>()[\]"'`]{1,2000})/g;
const TRAILING = /[.,;:!?]+$/;

const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

/** Every link in `text`, in order (a URL cited twice appears twice). */
export const citedLinks = (text: string): CitedLink[] => {
  const out: CitedLink[] = [];
  for (const m of text.matchAll(LINK)) {
    const start = m.index;
    if (m[2] !== undefined) {
      out.push({ url: m[2], title: (m[1] ?? "").trim() || hostOf(m[2]), start, end: start + m[0].length });
      continue;
    }
    const url = (m[3] ?? "").replace(TRAILING, "");
    if (url.length > "https://".length) out.push({ url, title: hostOf(url), start, end: start + url.length });
  }
  return out;
};

/** The distinct pages of `links`, first citation first. */
export const citedPages = (links: ReadonlyArray<CitedLink>): CitedLink[] => {
  const seen = new Set<string>();
  const out: CitedLink[] = [];
  for (const link of links) {
    if (seen.has(link.url)) continue;
    seen.add(link.url);
    out.push(link);
  }
  return out;
};
