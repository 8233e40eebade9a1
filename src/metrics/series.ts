import type { Metric, Registry } from 'prom-client';

/**
 * Counters, histograms and a gauge for the request hot path, printed by a prom-client Registry.
 *
 * prom-client builds a label object and a hash string on every `inc`/`observe` (~1.5 KB per
 * gateway request, issue 5). Here a series is found through one Map per label, keyed by the label
 * values themselves, and its label object is built once, when the series first appears. Callers
 * pass values positionally (no rest array), so a steady-state update allocates nothing.
 *
 * The exposition is prom-client's own: these objects have the shape its Registry reads
 * (`name`, `help`, `type`, `aggregator`, `get()`), and `get()` returns the values its Counter,
 * Gauge and Histogram return, in the same order, so the text is byte for byte the same.
 */

/** Label values in label-name order; a number prints as prom-client prints it (`status="200"`). */
export type LabelValue = string | number;
/** One to five labels: enough for the gateway's metrics, and lookups stay positional. */
type L = LabelValue;
export type LabelValues = [L] | [L, L] | [L, L, L] | [L, L, L, L] | [L, L, L, L, L];
/** Values kept as given, as prom-client keeps them: its JSON has `status: 200`, its text `status="200"`. */
type Labels = Readonly<Record<string, LabelValue>>;

export interface LabelledMetricOptions<V extends LabelValues> {
  name: string;
  help: string;
  labelNames: { readonly [K in keyof V]: string };
  /** Registered at once when given; else later with `registerIn` (the gateway's registry is made at the first scrape). */
  registry?: Registry;
}

/** What the Registry prints for one line; `metricName` is set for a histogram's suffixed lines. */
interface ExposedValue {
  labels: Labels;
  value: number;
  metricName?: string;
}

interface ExposedMetric {
  name: string;
  help: string;
  type: 'counter' | 'gauge' | 'histogram';
  values: ExposedValue[];
  aggregator: 'sum';
}

/** One Map per label; the last one holds the series. */
type Level<S> = Map<LabelValue, Level<S> | S>;

/** Finds or creates the series for a label combination and remembers creation order. */
class SeriesIndex<S extends object> {
  /** prom-client prints series in the order they first appeared; the nested maps do not keep it. */
  readonly all: S[] = [];
  private readonly root: Level<S> = new Map();

  constructor(
    private readonly labelNames: readonly string[],
    private readonly create: (labels: Labels) => S,
  ) {}

  /** Positional, so a lookup builds no array; the typed `series(...values)` overloads call it. */
  get(a: L, b?: L, c?: L, d?: L, e?: L): S {
    const depth = this.labelNames.length;
    let level = this.root;
    if (depth > 1) level = this.child(level, a);
    if (depth > 2) level = this.child(level, b!);
    if (depth > 3) level = this.child(level, c!);
    if (depth > 4) level = this.child(level, d!);
    const key = depth === 1 ? a : depth === 2 ? b! : depth === 3 ? c! : depth === 4 ? d! : e!;
    const found = level.get(key) as S | undefined;
    return found ?? this.add(level, key, [a, b, c, d, e]);
  }

  private child(level: Level<S>, key: LabelValue): Level<S> {
    let next = level.get(key) as Level<S> | undefined;
    if (next === undefined) {
      next = new Map();
      level.set(key, next);
    }
    return next;
  }

  private add(level: Level<S>, key: LabelValue, values: (LabelValue | undefined)[]): S {
    const labels: Record<string, LabelValue> = {};
    this.labelNames.forEach((name, i) => (labels[name] = values[i]!));
    const series = this.create(Object.freeze(labels));
    level.set(key, series);
    this.all.push(series);
    return series;
  }
}

/** prom-client's Registry reads any object of this shape; its typings only name its own classes. */
export function registerIn(registry: Registry | undefined, metric: { name: string; get(): ExposedMetric }): void {
  registry?.registerMetric(metric as unknown as Metric);
}

export class CounterSeries {
  value = 0;

  constructor(readonly labels: Labels) {}

  inc(by = 1): void {
    // prom-client's checks: a NaN or negative step would corrupt the series for good.
    if (!Number.isFinite(by)) throw new TypeError(`Value is not a valid number: ${by}`);
    if (by < 0) throw new Error('It is not possible to decrease a counter');
    this.value += by;
  }
}

export class LabelledCounter<V extends LabelValues> {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly index: SeriesIndex<CounterSeries>;

  constructor(options: LabelledMetricOptions<V>) {
    this.name = options.name;
    this.help = options.help;
    this.index = new SeriesIndex(options.labelNames, (labels) => new CounterSeries(labels));
    registerIn(options.registry, this);
  }

  /** The series for these label values; callers may keep it and call `inc` on it directly. */
  series(...values: V): CounterSeries;
  series(a: L, b?: L, c?: L, d?: L, e?: L): CounterSeries {
    return this.index.get(a, b, c, d, e);
  }

  get(): ExposedMetric {
    const values = this.index.all.map(({ labels, value }) => ({ labels, value }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** Zeroes the series rather than dropping them (prom-client drops them), so kept handles stay live. */
  reset(): void {
    for (const series of this.index.all) series.value = 0;
  }
}

export class HistogramSeries {
  /** Observations per bucket, not cumulative; past the last bound they only reach `count`. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Labels,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Float64Array(bounds.length);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    const bounds = this.bounds;
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]! += 1;
        break;
      }
    }
    this.sum += value;
    this.count += 1;
  }
}

export class LabelledHistogram<V extends LabelValues> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  private readonly bounds: readonly number[];
  private readonly index: SeriesIndex<HistogramSeries>;

  constructor(options: LabelledMetricOptions<V> & { buckets: readonly number[] }) {
    this.name = options.name;
    this.help = options.help;
    this.bounds = Object.freeze([...options.buckets]);
    this.index = new SeriesIndex(options.labelNames, (labels) => new HistogramSeries(labels, this.bounds));
    registerIn(options.registry, this);
  }

  /** The series for these label values; callers may keep it and call `observe` on it directly. */
  series(...values: V): HistogramSeries;
  series(a: L, b?: L, c?: L, d?: L, e?: L): HistogramSeries {
    return this.index.get(a, b, c, d, e);
  }

  /** prom-client's lines per series: cumulative `_bucket`s with `le` first, `+Inf`, `_sum`, `_count`. */
  get(): ExposedMetric {
    const bucket = `${this.name}_bucket`;
    const values: ExposedValue[] = [];
    for (const series of this.index.all) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += series.counts[i]!;
        values.push({ labels: { le: bound, ...series.labels }, value: cumulative, metricName: bucket });
      });
      values.push(
        { labels: { le: '+Inf', ...series.labels }, value: series.count, metricName: bucket },
        { labels: series.labels, value: series.sum, metricName: `${this.name}_sum` },
        { labels: series.labels, value: series.count, metricName: `${this.name}_count` },
      );
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  /** Zeroes the series rather than dropping them (prom-client drops them), so kept handles stay live. */
  reset(): void {
    for (const series of this.index.all) {
      series.counts.fill(0);
      series.sum = 0;
      series.count = 0;
    }
  }
}

/** A gauge without labels; printed from the start, at 0, like prom-client's. */
export class UnlabelledGauge {
  readonly type = 'gauge';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  value = 0;

  constructor(options: { name: string; help: string; registry?: Registry }) {
    this.name = options.name;
    this.help = options.help;
    registerIn(options.registry, this);
  }

  inc(): void {
    this.value += 1;
  }

  dec(): void {
    this.value -= 1;
  }

  get(): ExposedMetric {
    return { name: this.name, help: this.help, type: this.type, values: [{ labels: {}, value: this.value }], aggregator: this.aggregator };
  }

  reset(): void {
    this.value = 0;
  }
}
