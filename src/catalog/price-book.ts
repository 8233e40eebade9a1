import type { PriceConfig } from '../config/schema.js';
import { PRICE_SHEET } from './price-sheet.js';
import { batchDiscountOf, batchPriceOf, type BatchMode } from './batch-price.js';

/** Where a price comes from, in falling precedence. */
export type PriceSource = 'channel' | 'operator' | 'builtin';

export interface ResolvedPrice {
  readonly price: PriceConfig;
  /** The price as JSON, made once: usage events keep the price they were billed at. */
  readonly json: string;
  readonly source: PriceSource;
  /** builtin: the sheet's model it is the price of (the channel's upstream name, or the public id). */
  readonly sheetModel?: string;
}

/** The channels' part prices need: the upstream name of each public id, and per-channel prices. */
export interface PricedChannel {
  readonly name: string;
  readonly models: Readonly<Record<string, string>>;
  readonly prices?: Readonly<Record<string, PriceConfig>> | undefined;
  /** Its vendor's batch API, whose `discount` natively batched lines get (issue 46); a Channel has it. */
  readonly provider?: { readonly batch?: { readonly discount: number } | undefined };
  /** The built-in simulator answers for it: no vendor is paid, so the sheet's prices do not apply (issue 35). */
  readonly isSimulator?: boolean;
}

const SHEET: ReadonlyMap<string, PriceConfig> = new Map(PRICE_SHEET.flatMap((vendor) => Object.entries(vendor.models).map(([id, model]) => [id, model.price] as const)));

/**
 * Which price a request pays (issue 21): the serving channel's `prices` for the model, else the
 * operator's (admin API over file), else the built-in sheet's entry for the channel's upstream
 * model (so `delta-4.1` served by `gpt-4.1` costs what gpt-4.1 costs), else the sheet's entry for
 * the public id itself. Resolved once per (channel, model) and kept until prices or channels change.
 */
export class PriceBook {
  private operator: ReadonlyMap<string, PriceConfig> = new Map();
  private runtime: ReadonlyMap<string, PriceConfig> = new Map();
  private channels = new Map<string, PricedChannel>();
  private byModel = new Map<string, PricedChannel[]>();
  private resolved = new Map<string, ResolvedPrice | null>();
  private worst = new Map<string, readonly PriceConfig[]>();
  private batch = new Map<string, ResolvedPrice | null>();

  constructor(
    private readonly file: Readonly<Record<string, PriceConfig>> = {},
    private readonly useBuiltin = true,
  ) {
    this.operator = new Map(Object.entries(file));
  }

  /** The admin API's prices (database): they replace the file's for the same model. */
  setRuntimePrices(prices: ReadonlyMap<string, PriceConfig>): void {
    this.runtime = prices;
    this.operator = new Map([...Object.entries(this.file), ...prices]);
    this.forget();
  }

  setChannels(channels: readonly PricedChannel[]): void {
    this.channels = new Map(channels.map((channel) => [channel.name, channel]));
    const byModel = new Map<string, PricedChannel[]>();
    for (const channel of channels) for (const model of Object.keys(channel.models)) (byModel.get(model) ?? byModel.set(model, []).get(model)!).push(channel);
    this.byModel = byModel;
    this.forget();
  }

  /** Every operator price, for the admin view (`GET /admin/api/prices`). */
  operatorPrices(): Record<string, PriceConfig> {
    return Object.fromEntries(this.operator);
  }

  isRuntimePrice(model: string): boolean {
    return this.runtime.has(model);
  }

  /** The price of `model` served by the channel named `channel` (undefined: no channel answered). */
  priceFor(channel: string | null | undefined, model: string): ResolvedPrice | undefined {
    const key = `${channel ?? ''}\u0000${model}`;
    let found = this.resolved.get(key);
    if (found === undefined) {
      found = this.resolve(channel ? this.channels.get(channel) : undefined, model) ?? null;
      this.resolved.set(key, found);
    }
    return found ?? undefined;
  }

  /** The price a line of a batch pays (issue 46): the request's price less its batch discount (catalog/batch-price.ts). */
  batchPriceFor(channel: string | null | undefined, model: string, mode: BatchMode): ResolvedPrice | undefined {
    const key = `${mode}\u0000${channel ?? ''}\u0000${model}`;
    let found = this.batch.get(key);
    if (found === undefined) {
      const list = this.priceFor(channel, model);
      const price = list ? batchPriceOf(list.price, this.batchDiscountFor(channel, model, mode)) : undefined;
      found = list && price ? (price === list.price ? list : { ...list, price, json: JSON.stringify(price) }) : null;
      this.batch.set(key, found);
    }
    return found ?? undefined;
  }

  /** The price `model` pays on `channel`, whether or not the book knows that channel yet (start-up checks). */
  priceOn(channel: PricedChannel, model: string): ResolvedPrice | undefined {
    return this.resolve(channel, model);
  }

  /** The fraction a batch line of `model` on `channel` is billed below its price (catalog/batch-price.ts). */
  batchDiscountFor(channel: string | null | undefined, model: string, mode: BatchMode): number {
    const price = this.priceFor(channel, model)?.price;
    if (!price) return 0;
    return batchDiscountOf(price, mode, channel ? this.channels.get(channel)?.provider?.batch?.discount : undefined);
  }

  /** Every price `model` may be billed at (one per channel serving it), for worst-case budget holds. */
  candidatesFor(model: string): readonly PriceConfig[] {
    let list = this.worst.get(model);
    if (!list) {
      const channels = this.byModel.get(model) ?? [];
      const prices = channels.length > 0 ? channels.map((channel) => this.priceFor(channel.name, model)?.price) : [this.priceFor(undefined, model)?.price];
      list = [...new Set(prices.filter((price): price is PriceConfig => price !== undefined))];
      this.worst.set(model, list);
    }
    return list;
  }

  private resolve(channel: PricedChannel | undefined, model: string): ResolvedPrice | undefined {
    const own = channel?.prices?.[model];
    if (own) return { price: own, json: JSON.stringify(own), source: 'channel' };
    const operator = this.operator.get(model);
    if (operator) return { price: operator, json: JSON.stringify(operator), source: 'operator' };
    // Simulated answers cost nothing unless the operator priced them (issue 35): billing a
    // simulator at a vendor's list price made trial keys look spent on replies nobody paid for.
    if (!this.useBuiltin || channel?.isSimulator) return undefined;
    const upstream = channel?.models[model];
    for (const name of upstream !== undefined ? [upstream, model] : [model, ...this.upstreamNamesOf(model)]) {
      const sheet = SHEET.get(name);
      if (sheet) return { price: sheet, json: JSON.stringify(sheet), source: 'builtin', sheetModel: name };
    }
    return undefined;
  }

  /** The upstream names channels give `model` (no channel answered: any of them). */
  private upstreamNamesOf(model: string): string[] {
    return (this.byModel.get(model) ?? []).map((channel) => channel.models[model]!);
  }

  private forget(): void {
    this.resolved = new Map();
    this.worst = new Map();
    this.batch = new Map();
  }
}
