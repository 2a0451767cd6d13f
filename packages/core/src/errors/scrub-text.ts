/**
 * Backend error text is passed to clients; where the backend lives and how the gateway reaches it is
 * not theirs to know. These remove addresses and a deployment's own secrets from such text.
 */

/** Characters a URL may not end with in prose: "see (https://x/y), then …" keeps its `),`. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()[\]{}]*[^\s"'<>()[\]{}.,;:!?]/gi;

/** Every `scheme://…` URL in `text` as `placeholder`; the punctuation around it stays. */
export const withoutUrls = (text: string, placeholder = "<url>"): string =>
  text.replace(URL_IN_TEXT, placeholder);

/**
 * `text` with each of `secrets` (a key, a base URL, a host:port, a path) replaced by `[redacted]`,
 * longest first so a URL goes before the host inside it. Secrets shorter than 4 characters are
 * skipped: they would redact ordinary words.
 */
export const withoutSecrets = (text: string, secrets: ReadonlyArray<string>): string => {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length))
    if (secret.length >= 4) out = out.split(secret).join("[redacted]");
  return out;
};
