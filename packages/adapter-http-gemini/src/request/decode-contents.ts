import { type ContentPart, type ConversationItem, invalidRequest } from "@proxy/core";
import { isObject, listAt, type Obj, objectAt, oneOf, optionalString, stringAt } from "./fields.js";

const ROLES = ["user", "model", "function", "system"] as const;

/** A Gemini `functionResponse.response` as the text a backend sees: `{output}` unwrapped, `{error}` marked. */
const responseText = (response: Obj): string => {
  const keys = Object.keys(response);
  if (keys.length === 1 && "output" in response)
    return typeof response.output === "string" ? response.output : JSON.stringify(response.output);
  if (keys.length === 1 && "error" in response)
    return `Error: ${typeof response.error === "string" ? response.error : JSON.stringify(response.error)}`;
  return JSON.stringify(response);
};

/** `path` names the part in the request, for the gateway's error if fetching a remote image fails. */
const imagePart = (mimeType: string, url: string, param: string, path?: string): ContentPart => {
  if (!mimeType.startsWith("image/"))
    throw invalidRequest(
      `Unsupported MIME type at '${param}': '${mimeType}'. This gateway accepts images only.`,
      param,
    );
  return path === undefined ? { type: "image", url } : { type: "image", url, path };
};

/** Tracks calls by id and by name so a `functionResponse` without an id still finds its call. */
const createCallBook = () => {
  const unanswered: Array<{ callId: string; name: string }> = [];
  return {
    called(callId: string, name: string) {
      unanswered.push({ callId, name });
    },
    answer(id: string | undefined, name: string, fallback: string): string {
      const at =
        id === undefined
          ? unanswered.findIndex((c) => c.name === name)
          : unanswered.findIndex((c) => c.callId === id);
      if (at >= 0) return unanswered.splice(at, 1)[0]!.callId;
      return id ?? fallback;
    },
  };
};

/**
 * Gemini `contents` → core conversation items, in order. `user`/`function` turns carry text,
 * images and `functionResponse`s; `model` turns carry text, `thought` text (kept as reasoning,
 * not shown to the backend) and `functionCall`s. `thoughtSignature` on any part is accepted and
 * dropped: signatures never leave the request they came in. Consecutive same-role contents are fine.
 * `history` (a stored conversation's contents) comes first, so its calls pair with new responses.
 */
export const contentsToItems = (
  rawContents: unknown,
  param = "contents",
  history: ReadonlyArray<unknown> = [],
): ConversationItem[] => {
  const contents = listAt(rawContents, param);
  if (contents.length === 0) throw invalidRequest(`'${param}' must hold at least one content.`, param);
  const items: ConversationItem[] = [];
  const calls = createCallBook();
  [...history, ...contents].forEach((raw, i) => {
    const at = i < history.length ? `conversation[${i}]` : `${param}[${i - history.length}]`;
    const content = objectAt(raw, at);
    const role = content.role == null ? "user" : oneOf(content.role, `${at}.role`, ROLES);
    const parts = listAt(content.parts, `${at}.parts`);
    const message: ContentPart[] = [];
    const flush = () => {
      if (message.length === 0) return;
      items.push({
        type: "message",
        role: role === "model" ? "assistant" : role === "system" ? "system" : "user",
        content: message.splice(0),
      });
    };
    parts.forEach((rawPart, j) => {
      const p = `${at}.parts[${j}]`;
      const part = objectAt(rawPart, p);
      if (typeof part.text === "string") {
        if (part.thought === true) {
          flush();
          items.push({ type: "reasoning", text: part.text });
        } else if (part.text !== "") message.push({ type: "text", text: part.text });
      } else if (part.inlineData !== undefined) {
        const data = objectAt(part.inlineData, `${p}.inlineData`);
        const mime = stringAt(data.mimeType, `${p}.inlineData.mimeType`);
        const b64 = stringAt(data.data, `${p}.inlineData.data`);
        message.push(imagePart(mime, `data:${mime};base64,${b64}`, `${p}.inlineData.mimeType`));
      } else if (part.fileData !== undefined) {
        const file = objectAt(part.fileData, `${p}.fileData`);
        const uri = stringAt(file.fileUri, `${p}.fileData.fileUri`);
        if (!/^https?:\/\//i.test(uri))
          throw invalidRequest(
            `Invalid value at '${p}.fileData.fileUri': only http(s) URIs are supported.`,
            `${p}.fileData.fileUri`,
          );
        message.push(
          imagePart(
            optionalString(file.mimeType, `${p}.fileData.mimeType`) ?? "image/*",
            uri,
            `${p}.fileData.mimeType`,
            `${p}.fileData.fileUri`,
          ),
        );
      } else if (part.functionCall !== undefined) {
        if (role !== "model")
          throw invalidRequest(
            `'${p}.functionCall' may only appear in a 'model' content.`,
            `${p}.functionCall`,
          );
        const call = objectAt(part.functionCall, `${p}.functionCall`);
        const name = stringAt(call.name, `${p}.functionCall.name`);
        const args = call.args == null ? {} : objectAt(call.args, `${p}.functionCall.args`);
        const callId = optionalString(call.id, `${p}.functionCall.id`) ?? `call_${name}_${i}_${j}`;
        flush();
        calls.called(callId, name);
        items.push({ type: "tool-call", callId, name, arguments: JSON.stringify(args) });
      } else if (part.functionResponse !== undefined) {
        if (role === "model")
          throw invalidRequest(
            `'${p}.functionResponse' may not appear in a 'model' content.`,
            `${p}.functionResponse`,
          );
        const result = objectAt(part.functionResponse, `${p}.functionResponse`);
        const name = stringAt(result.name, `${p}.functionResponse.name`);
        const response = objectAt(result.response, `${p}.functionResponse.response`);
        const id = optionalString(result.id, `${p}.functionResponse.id`);
        flush();
        items.push({
          type: "tool-result",
          callId: calls.answer(id, name, `call_${name}_${i}_${j}`),
          name,
          output: responseText(response),
        });
      } else if (
        !isObject(part) ||
        !("thoughtSignature" in part || "executableCode" in part || "codeExecutionResult" in part)
      ) {
        throw invalidRequest(
          `Invalid value at '${p}': a part needs one of text, inlineData, fileData, functionCall or functionResponse.`,
          p,
        );
      }
    });
    flush();
  });
  return items;
};

/** `systemInstruction` (a Content, or a bare string from some clients) → the turn's instructions. */
export const systemText = (raw: unknown): string | undefined => {
  if (raw == null) return undefined;
  if (typeof raw === "string") return raw;
  const content = objectAt(raw, "systemInstruction");
  const parts = listAt(content.parts, "systemInstruction.parts");
  return parts
    .map((part, j) => {
      const p = objectAt(part, `systemInstruction.parts[${j}]`);
      return stringAt(p.text, `systemInstruction.parts[${j}].text`);
    })
    .join("\n");
};
