export * from "./scripted-backend.js";
