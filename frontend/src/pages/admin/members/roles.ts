import type { Option } from "../../../components/form";

export const ROLE_OPTIONS: Option[] = [
  { value: "annotator", label: "Annotator" },
  { value: "reviewer", label: "Reviewer" },
  { value: "admin", label: "Admin" },
];
