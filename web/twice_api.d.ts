// Types of twice_api.mjs (the npm package twice-sim, made by scripts/web.sh).

/** One invariant's verdict, as `twice run --json` has it. */
export interface Verdict {
  name: string;
  held: boolean;
  judged: boolean;
  detail: string;
  evidence?: string[];
  [field: string]: unknown;
}

export interface ScenarioOptions {
  /** The file's name as reports show it, e.g. "scenarios/double_refund.toml" (default "scenario.toml"). */
  name?: string;
  /** Overrides the file's seed. */
  seed?: number;
}

export interface RunOptions extends ScenarioOptions {
  /** Write the HTML report (default true). */
  report?: boolean;
}

export interface RunResult {
  /** 0 expectations met, 1 not met, 2 bad input. */
  exitCode: number;
  /** The trace digest, the same as the native `twice run` gives; null on bad input. */
  digest: string | null;
  verdicts: Verdict[];
  /** The story as the terminal shows it: settings, timeline, verdicts. */
  timeline: string;
  reportHtml: string | null;
  /** The whole `twice run --json` line, parsed. */
  summary: Record<string, unknown> | null;
  /** Errors with file:line:column, for bad input. */
  errors: string;
}

export interface LintResult {
  exitCode: number;
  warnings: string;
  errors: string;
}

export interface ExploreOptions extends ScenarioOptions {
  /** The run budget (default 100). */
  runs?: number;
}

export interface ExploreResult {
  exitCode: number;
  /** explore.json's content. */
  result: Record<string, unknown> | null;
  /** The files explore wrote (repro scenarios and explore.json), by name. */
  repros: Record<string, string>;
  errors: string;
}

export function run(scenarioText: string, options?: RunOptions): Promise<RunResult>;
export function lint(scenarioText: string, options?: ScenarioOptions): Promise<LintResult>;
export function explore(scenarioText: string, options?: ExploreOptions): Promise<ExploreResult>;

/** A module instance of its own, with the commands' raw outputs. */
export interface Twice {
  run(text: string, options?: RunOptions): { exitCode: number; stdout: string; stderr: string; summary: Record<string, unknown> | null; reportHtml: string | null };
  story(text: string, options?: ScenarioOptions): { exitCode: number; stdout: string; stderr: string };
  lint(text: string, options?: ScenarioOptions): { exitCode: number; stdout: string; stderr: string };
  explore(text: string, options?: ExploreOptions): { exitCode: number; stdout: string; stderr: string; result: Record<string, unknown> | null; repros: Record<string, string> | null };
}
export function load(moduleUrl?: string): Promise<Twice>;
