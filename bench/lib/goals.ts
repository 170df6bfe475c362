/** Goals as the issue states them, checked against what was measured. */
import type { Goal } from './types.js';

/**
 * One goal over several measured points (eras, connection counts): met when every point passes.
 * `points` are label → value; `show` formats a value.
 */
export function goal(
  text: string,
  target: string,
  points: readonly (readonly [string, number])[],
  pass: (value: number) => boolean,
  show: (value: number) => string,
): Goal {
  const usable = points.filter(([, v]) => Number.isFinite(v));
  return {
    goal: text,
    target,
    measured: points.map(([label, v]) => (label ? `${label}: ${show(v)}` : show(v))).join('; '),
    met: usable.length === points.length && usable.length > 0 ? usable.every(([, v]) => pass(v)) : null,
  };
}

/**
 * A figure the issue asks to show without a target (the throughput of 3 replicas against 1 on a
 * machine of fewer cores than processes): its verdict says "reported" once every point is measured.
 */
export function reported(
  text: string,
  points: readonly (readonly [string, number])[],
  show: (value: number) => string,
): Goal {
  return { ...goal(text, 'reported, no target', points, () => true, show), reported: true };
}
