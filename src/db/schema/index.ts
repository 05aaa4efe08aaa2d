export * from "./projects";
export * from "./keys";
export * from "./webhooks";
export * from "./jobs";
export * from "./videos";
export * from "./admin";
export * from "./live";
