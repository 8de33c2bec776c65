// Chart.js with the bar and matrix (heatmap) pieces, loaded on demand.

import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip } from "chart.js";
import { MatrixController, MatrixElement } from "chartjs-chart-matrix";

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip, MatrixController, MatrixElement);

export { Chart };
