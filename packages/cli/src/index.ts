/**
 * `@fhelium/cli`: the `fhelium` command (demo, bench, info, chart) and the pieces other tools reuse:
 * the DESIGN.md reference figures, benchmark figure extraction, and the SVG chart maker.
 */
export { runCli, COMMAND_SPECS } from './runCli.js';
export { type CliIo, type TextSink, processIo } from './io.js';
export { CliUsageError, CliFailure, DemoAccuracyError, EXIT_USAGE, EXIT_FAILURE } from './errors.js';
export * from './references.js';
export { figuresOf, suiteOfResult, type BenchFigure } from './bench/BenchFigure.js';
export { BENCH_RECORD_FORMAT, BENCH_RECORD_VERSION, type BenchRecord, type BenchSuiteRecord, type BenchHost } from './bench/BenchRecord.js';
export { BENCH_SUITES, type BenchSuite } from './bench/suites.js';
export { loadBenchRun, BenchFileError, type BenchRun } from './chart/loadBenchRun.js';
export { makeCharts, type ChartFile } from './chart/makeCharts.js';
export { groupedBarChart, type GroupedBarChartSpec, type ChartSeries, type ChartGroup } from './chart/groupedBarChart.js';
export { runDemo, type DemoOptions, type DemoReport } from './demo/runDemo.js';
export { Progress } from './demo/Progress.js';
export type { Style } from './style.js';
export type { GraphDemoReport } from './demo/graphPipeline.js';
