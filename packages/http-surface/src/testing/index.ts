export * from "./serve.js";
export * from "./surface-contract.js";
export * from "./with-capacity.js";
