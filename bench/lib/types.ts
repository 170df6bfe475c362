/**
 * The shapes every scenario shares: its options in, its result out. A result is data first
 * (bench/results.json keeps it raw); the markdown page is rendered from it.
 */

export interface BenchOptions {
  /** A tiny run that proves each scenario starts and produces figures (tests use it). */
  readonly smoke: boolean;
  /** Seconds of one measurement (one contender, one round). */
  readonly duration: number;
  /** Seconds of warm-up per contender before the first round (JIT, connections, caches). */
  readonly warmup: number;
  readonly rounds: number;
  /** Seconds of each load run of the `soak` scenario: `--duration` when given, else 20 (smoke: 2). */
  readonly soak: number;
  /** Repetitions of one-shot measurements (cold start, hot reload). */
  readonly runs: number;
  /** Write .cpuprofile files of the mcp-run processes into this folder. */
  readonly profileDir?: string;
}

export type Cell = string | number | null;

export interface Table {
  readonly caption: string;
  readonly columns: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
}

export interface Goal {
  readonly goal: string;
  readonly target: string;
  readonly measured: string;
  /** null when the scenario could not measure it (e.g. a smoke run). */
  readonly met: boolean | null;
  /** A figure the issue asks to show, with no target to meet: `met` is true once it is measured. */
  readonly reported?: true;
}

export interface ScenarioResult {
  readonly name: string;
  readonly title: string;
  /** What ran and how, one markdown bullet each. */
  readonly setup: readonly string[];
  readonly tables: readonly Table[];
  readonly goals: readonly Goal[];
  /** Every round's figures, for whoever wants to recompute. */
  readonly raw: unknown;
}

export interface Scenario {
  readonly name: string;
  readonly title: string;
  run(options: BenchOptions, work: string): Promise<ScenarioResult>;
}
