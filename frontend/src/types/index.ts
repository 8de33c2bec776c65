// Shapes of the REST API, one module per part of it; import them from here.

export * from "./adjudication";
export * from "./admin";
export * from "./agreement";
export * from "./annotations";
export * from "./documents";
export * from "./evaluation";
export * from "./generation";
export * from "./gold";
export * from "./history";
export * from "./itemLeaderboard";
