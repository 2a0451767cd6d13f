export * from "./scripted-upstream.js";
