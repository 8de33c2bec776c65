// Chart.js with only the pieces of a bar chart registered (loaded on demand, so the rest
// of the app does not carry it).

import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from "chart.js";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

export { Chart };
