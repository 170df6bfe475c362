/**
 * The chart view's own SVG renderer for the shorthand (bar, line, area, scatter, pie): one mark per
 * data point (`.mark`, with its values as a <title>), a legend when there is more than one series.
 * A few hundred lines instead of Vega's 1 MB (docs/apps.md has the measured sizes).
 */
import { type ChartSettings, compareValues, type Row } from './settings.js';

const WIDTH = 640;
const HEIGHT = 320;
const MARGIN = { top: 16, right: 16, bottom: 64, left: 64 };
const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7'];

interface Series {
  readonly name: string;
  readonly points: readonly { readonly x: string; readonly y: number }[];
}

/** The rows as series: one per `y` field, or one per value of `series`. */
export function seriesOf(chart: ChartSettings, rows: readonly Row[]): { xs: string[]; series: Series[] } {
  const ys = typeof chart.y === 'string' ? [chart.y] : [...chart.y];
  let ordered = [...rows];
  if (chart.sort !== undefined) {
    const key = chart.sort.endsWith('x') ? chart.x : ys[0];
    const dir = chart.sort.startsWith('-') ? -1 : 1;
    if (key !== undefined) ordered.sort((a, b) => dir * compareValues(a[key], b[key]));
  }
  ordered = ordered.filter((row) => ys.some((y) => Number.isFinite(Number(row[y]))));
  const xs = [...new Set(ordered.map((row) => String(row[chart.x] ?? '')))];
  const groups = new Map<string, { x: string; y: number }[]>();
  for (const row of ordered) {
    const x = String(row[chart.x] ?? '');
    for (const y of ys) {
      const name = chart.series !== undefined ? String(row[chart.series] ?? '') : y;
      const value = Number(row[y]);
      if (!Number.isFinite(value)) continue;
      const points = groups.get(name) ?? [];
      points.push({ x, y: value });
      groups.set(name, points);
    }
  }
  return { xs, series: [...groups].map(([name, points]) => ({ name, points })) };
}

export function Chart({ chart, rows, title }: { chart: ChartSettings; rows: readonly Row[]; title: string }) {
  const { xs, series } = seriesOf(chart, rows);
  const colors = new Map(series.map((s, i) => [s.name, PALETTE[i % PALETTE.length] as string]));
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        role="img"
        aria-label={`${chart.type} chart: ${title}`}
        data-type={chart.type}
      >
        {chart.type === 'pie' ? (
          <Pie series={series} />
        ) : (
          <Axes chart={chart} xs={xs} series={series} colors={colors} />
        )}
      </svg>
      {(series.length > 1 || chart.type === 'pie') && (
        <figcaption class="legend">
          {(chart.type === 'pie' ? (series[0]?.points ?? []).map((p) => p.x) : series.map((s) => s.name)).map(
            (name, i) => (
              <span key={name}>
                <i
                  style={{
                    background: chart.type === 'pie' ? PALETTE[i % PALETTE.length] : colors.get(name),
                  }}
                />
                {name}
              </span>
            ),
          )}
        </figcaption>
      )}
    </figure>
  );
}

function Axes({
  chart,
  xs,
  series,
  colors,
}: {
  chart: ChartSettings;
  xs: readonly string[];
  series: readonly Series[];
  colors: ReadonlyMap<string, string>;
}) {
  const values = series.flatMap((s) => s.points.map((p) => p.y));
  // Ticks at round steps (1, 2 or 5 times a power of ten), the axis from and to a tick.
  const step = niceStep((Math.max(0, ...values) - Math.min(0, ...values)) / 4 || 1);
  const top = Math.ceil(Math.max(0, ...values) / step) * step;
  const bottom = Math.floor(Math.min(0, ...values) / step) * step;
  const span = top - bottom || 1;
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const band = plotW / Math.max(1, xs.length);
  const xOf = (x: string) => MARGIN.left + band * (xs.indexOf(x) + 0.5);
  const yOf = (y: number) => MARGIN.top + plotH - ((y - bottom) / span) * plotH;
  const ticks = Array.from({ length: Math.round(span / step) + 1 }, (_, i) => bottom + step * i);
  const every = Math.ceil(xs.length / 16);
  const barW = (band * 0.8) / Math.max(1, series.length);
  return (
    <g>
      {ticks.map((t) => (
        <g key={t} class="tick">
          <line x1={MARGIN.left} x2={WIDTH - MARGIN.right} y1={yOf(t)} y2={yOf(t)} />
          <text x={MARGIN.left - 6} y={yOf(t) + 4} text-anchor="end">
            {Number(t.toPrecision(3)).toLocaleString()}
          </text>
        </g>
      ))}
      {xs.map((x, i) => {
        if (i % every !== 0) return null;
        // Labels wider than their band are turned, so that neighbours do not overlap.
        const label = x.length > 12 ? `${x.slice(0, 11)}…` : x;
        const turned = label.length * 6.5 > band * every;
        const y = HEIGHT - MARGIN.bottom + 16;
        return (
          <text
            key={x}
            class="xlabel"
            x={xOf(x)}
            y={y}
            text-anchor={turned ? 'end' : 'middle'}
            transform={turned ? `rotate(-35 ${xOf(x)} ${y})` : undefined}
          >
            {label}
          </text>
        );
      })}
      {series.map((s, si) => {
        const color = colors.get(s.name);
        const path = s.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${xOf(p.x)},${yOf(p.y)}`).join('');
        return (
          <g key={s.name} class="series" fill={color} stroke={color}>
            {chart.type === 'area' && s.points.length > 0 && (
              <path
                class="area"
                d={`${path}L${xOf(s.points[s.points.length - 1]?.x ?? '')},${yOf(bottom)}L${xOf(s.points[0]?.x ?? '')},${yOf(bottom)}Z`}
                fill-opacity="0.25"
                stroke="none"
              />
            )}
            {(chart.type === 'line' || chart.type === 'area') && (
              <path class="line" d={path} fill="none" stroke-width="2" />
            )}
            {s.points.map((p) =>
              chart.type === 'bar' ? (
                <rect
                  key={p.x}
                  class="mark"
                  x={xOf(p.x) - band * 0.4 + barW * si}
                  y={Math.min(yOf(p.y), yOf(0))}
                  width={barW}
                  height={Math.abs(yOf(0) - yOf(p.y))}
                  stroke="none"
                >
                  <title>{`${p.x}, ${s.name}: ${p.y}`}</title>
                </rect>
              ) : (
                <circle
                  key={p.x}
                  class="mark"
                  cx={xOf(p.x)}
                  cy={yOf(p.y)}
                  r={chart.type === 'scatter' ? 4 : 3}
                >
                  <title>{`${p.x}, ${s.name}: ${p.y}`}</title>
                </circle>
              ),
            )}
          </g>
        );
      })}
    </g>
  );
}

function niceStep(raw: number): number {
  const power = 10 ** Math.floor(Math.log10(raw));
  const unit = raw / power;
  return (unit <= 1 ? 1 : unit <= 2 ? 2 : unit <= 5 ? 5 : 10) * power;
}

/** A pie of the first series: one slice per point, its share of the total. */
function Pie({ series }: { series: readonly Series[] }) {
  const points = (series[0]?.points ?? []).filter((p) => p.y > 0);
  const total = points.reduce((sum, p) => sum + p.y, 0) || 1;
  const cx = WIDTH / 2;
  const cy = HEIGHT / 2;
  const r = HEIGHT / 2 - 16;
  let angle = -Math.PI / 2;
  return (
    <g>
      {points.map((p, i) => {
        const start = angle;
        angle += (p.y / total) * Math.PI * 2;
        const large = angle - start > Math.PI ? 1 : 0;
        const at = (a: number) => `${cx + r * Math.cos(a)},${cy + r * Math.sin(a)}`;
        const d =
          points.length === 1
            ? `M${cx - r},${cy}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`
            : `M${cx},${cy}L${at(start)}A${r},${r} 0 ${large},1 ${at(angle)}Z`;
        return (
          <path key={p.x} class="mark" d={d} fill={PALETTE[i % PALETTE.length]}>
            <title>{`${p.x}: ${p.y}`}</title>
          </path>
        );
      })}
    </g>
  );
}
