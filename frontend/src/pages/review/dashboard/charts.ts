// Chart.js with the bar and matrix (heatmap) pieces, loaded on demand.

import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Title, Tooltip } from "chart.js";
import { MatrixController, MatrixElement } from "chartjs-chart-matrix";

// Title is off unless a chart asks for it: the dashboard shows it only in the PNG.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Title, Tooltip, MatrixController, MatrixElement);

export { Chart };
