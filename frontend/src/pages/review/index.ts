// The review pages, loaded on demand as one chunk (annotators never download them).
export { ReviewPage } from "./dashboard/ReviewPage";
export { AdjudicationQueuePage } from "./adjudication/AdjudicationQueuePage";
export { AdjudicatePage } from "./adjudication/AdjudicatePage";
export { GoldVersionsPage } from "./gold/GoldVersionsPage";
export { GoldVersionPage } from "./gold/GoldVersionPage";
export { DocumentHistoryPage } from "./history/DocumentHistoryPage";
