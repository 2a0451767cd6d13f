/** A name however it is spelled: case, `_`, `-` and a leading `PROXY_` aside (`PROXY_TOOLMODE` = `toolMode`). */
const normalized = (name: string): string =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")
    .replace(/^proxy/, "");

/** Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`. */
const editDistance = (a: string, b: string): number => {
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, (before[j - 2] ?? 0) + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
};

/**
 * The candidate a mistyped name most likely meant, if one is close: same letters in another case or
 * separator style, or a few edits away (at most one per four letters). `spellings` are the ways a
 * candidate may be written (its config-file key, its env var).
 */
export const closestName = <T>(
  name: string,
  candidates: ReadonlyArray<T>,
  spellings: (candidate: T) => ReadonlyArray<string>,
): T | undefined => {
  const wanted = normalized(name);
  const allowed = Math.max(1, Math.floor(wanted.length / 4));
  let best: { candidate: T; distance: number } | undefined;
  for (const candidate of candidates)
    for (const spelling of spellings(candidate)) {
      const distance = editDistance(wanted, normalized(spelling));
      if (distance <= allowed && (best === undefined || distance < best.distance))
        best = { candidate, distance };
    }
  return best?.candidate;
};
