import { request as httpRequest } from "node:http";
import { createScriptedBackend, type Script } from "@proxy/core/testing";
import { gatewayOver, type ReliabilityGateway } from "../reliability/support.js";

export const CLIENT_KEY = "sk-client-0123456789";
export const ADMIN_KEY = "admin-0123456789abcdef";
export const ADMIN = { authorization: `Bearer ${ADMIN_KEY}` };

/** The real gateway (real config, server and middleware) with the inspector on, over a scripted model. */
export const inspectorGateway = (
  script: Script,
  env: Record<string, string> = {},
  options: { readonly nativeTools?: boolean } = {},
): Promise<ReliabilityGateway> =>
  gatewayOver(createScriptedBackend(script, { record: false, nativeTools: options.nativeTools ?? false }), {
    PROXY_INSPECTOR: "on",
    PROXY_API_KEYS: CLIENT_KEY,
    PROXY_ADMIN_KEY: ADMIN_KEY,
    ...env,
  });

/** The text of a backend request's input (what the script quotes back in its errors). */
export const inputText = (request: { input: ReadonlyArray<{ type: string; text?: string }> }) =>
  request.input.map((p) => p.text ?? "").join("");

export const chatAs = (
  url: string,
  key: string,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
) =>
  fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify({ model: "m", ...body }),
  });

export const adminJson = async <T>(url: string, path: string): Promise<T> => {
  const res = await fetch(`${url}${path}`, { headers: ADMIN });
  if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
};

export interface Row {
  seq: number;
  requestId: string;
  status: number;
  error: string;
  model: string;
  mode: string;
  calls: string[];
  toolCalls: number;
}

/** A live-events connection read as raw bytes (or not read at all: `pause`). */
export const openWatcher = (url: string, headers: Record<string, string> = ADMIN) =>
  new Promise<{
    status: number;
    body: () => string;
    ended: Promise<void>;
    pause(): void;
    resume(): void;
    close(): void;
    res: import("node:http").IncomingMessage;
  }>((resolve, reject) => {
    const req = httpRequest(`${url}/ui/api/stream`, { headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        text += d;
      });
      const ended = new Promise<void>((done) => {
        res.on("end", done);
        res.on("close", done);
        res.on("error", () => done());
      });
      resolve({
        status: res.statusCode ?? 0,
        body: () => text,
        ended,
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => req.destroy(),
        res,
      });
    });
    req.on("error", reject);
    req.end();
  });
