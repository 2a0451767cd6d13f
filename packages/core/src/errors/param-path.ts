/** `["messages", 3, "content"]` → `messages[3].content` (OpenAI's `param` spelling). */
export const formatParamPath = (path: ReadonlyArray<PropertyKey>, base = ""): string => {
  let out = base;
  for (const segment of path) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out;
};
