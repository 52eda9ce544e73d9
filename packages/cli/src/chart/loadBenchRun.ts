/**
 * Reads benchmark JSON into figures. Three shapes are accepted: a `fhelium bench` record, the
 * output of one package benchmark script (`{ "benchmark": "@fhelium/ckks", ... }`), and the
 * collection of tools/gpu/run-benchmarks.mjs (`{ "generated", "results": [{ "script", "result" }] }`).
 * Figures are recomputed from the raw results, so every chart uses the current reference table.
 */
import { describeGiven } from '@fhelium/buffer';
import { FHEliumError } from '@fhelium/signature';

import { checkString } from '../argumentChecks.js';
import { figuresOf, suiteOfResult, type BenchFigure } from '../bench/BenchFigure.js';
import { BENCH_RECORD_FORMAT } from '../bench/BenchRecord.js';

/** The figures of one benchmark file, with a label for its series. */
export interface BenchRun {
  /** Series label: machine and date (`NVIDIA H200, 2026-12-02`). */
  readonly label: string;
  readonly figures: readonly BenchFigure[];
}

/**
 * A file that is not benchmark JSON of a known shape. An {@link FHEliumError}, as every error the
 * packages throw for their own reasons, so one `instanceof` tells them from anything else.
 */
export class BenchFileError extends FHEliumError {
  override name = 'BenchFileError';
}

type Json = Record<string, unknown>;
const isRecord = (x: unknown): x is Json => x !== null && typeof x === 'object' && !Array.isArray(x);
const str = (x: unknown): string | null => (typeof x === 'string' && x !== '' ? x : null);

function machineOf(result: Json): string | null {
  return str(result.gpu) ?? str(result.cpu) ?? null;
}

function day(date: unknown): string | null {
  return typeof date === 'string' ? date.slice(0, 10) : null;
}

/**
 * The run in `json` (parsed file content); `source` names it in errors.
 * @throws {BenchFileError} when no known shape matches or no figure is found.
 * @throws {TypeError} when `source` is not a string.
 */
export function loadBenchRun(json: unknown, source: string): BenchRun {
  checkString(source, 'loadBenchRun: source');
  if (!isRecord(json)) throw new BenchFileError(`${source}: expected a JSON object of benchmark results, got ${describeGiven(json)}`);
  let figures: BenchFigure[];
  let machine: string | null;
  let date: string | null;
  if (json.format === BENCH_RECORD_FORMAT) {
    const suites = Array.isArray(json.suites) ? json.suites : [];
    figures = suites.flatMap((s) => (isRecord(s) && s.status === 'ok' && typeof s.suite === 'string' ? figuresOf(s.suite, s.result) : []));
    const host = isRecord(json.host) ? json.host : {};
    machine = str(host.gpu) ?? str(host.cpu);
    date = day(json.date);
  } else if (Array.isArray(json.results)) {
    const results = json.results.filter(isRecord).map((r) => r.result).filter(isRecord);
    figures = results.flatMap((r) => {
      const suite = suiteOfResult(r);
      return suite === null ? [] : figuresOf(suite, r);
    });
    machine = results.map(machineOf).find((m) => m !== null) ?? null;
    date = day(json.generated);
  } else {
    const suite = suiteOfResult(json);
    if (suite === null) {
      throw new BenchFileError(`${source}: not benchmark JSON: expected a fhelium bench record ("format": "${BENCH_RECORD_FORMAT}"), a benchmark script's output ("benchmark": "@fhelium/…") or a run-benchmarks collection ("results": [...])`);
    }
    figures = figuresOf(suite, json);
    machine = machineOf(json);
    date = day(json.date);
  }
  if (figures.length === 0) throw new BenchFileError(`${source}: no benchmark figures found (every suite failed or was skipped?)`);
  return { label: [machine ?? 'unknown machine', date].filter((x) => x !== null).join(', '), figures };
}
