// The evaluation pages, loaded on demand as one chunk (annotators never download them).
export { RunsPage } from "./runs/RunsPage";
export { LaunchPage } from "./runs/LaunchPage";
export { RunPage } from "./runs/RunPage";
export { LeaderboardPage } from "./leaderboard/LeaderboardPage";
