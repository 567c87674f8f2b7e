export * from "./index.js";
export * from "./webhooks.js";
