import type { ModelLookup } from '../contracts/model-lookup.js';
import type { ModelConfig } from '../config/schema.js';
import { CATALOG } from './models.js';
import { FAMILIES_BY_KIND, type EmbeddingTraits, type ModelKind } from '../contracts/endpoint-family.js';
import { type EndpointFamily } from '../contracts/endpoint-family.js';
import { PRICE_SHEET } from './price-sheet.js';

/** Where a model's entry comes from, in rising precedence after the spec's (which nothing replaces). */
export type ModelSource = 'spec' | 'builtin' | 'file' | 'runtime';

export interface CatalogEntry {
  readonly id: string;
  /** `owned_by` in /v1/models. */
  readonly owner: string;
  readonly kind: ModelKind;
  readonly families: readonly EndpointFamily[];
  readonly source: ModelSource;
  /** Embedding models of the built-in sheet: what the embeddings family checks before calling upstream. */
  readonly embedding?: EmbeddingTraits;
}

/** The channels' part the catalog needs: which public ids each maps, and its vendor. */
export interface ChannelModels {
  readonly vendor: string;
  readonly models: Readonly<Record<string, string>>;
}

const entryOf = (model: ModelConfig, source: 'file' | 'runtime'): CatalogEntry =>
  Object.freeze({ id: model.id, owner: model.owned_by ?? '', kind: model.kind, families: Object.freeze([...(model.families ?? FAMILIES_BY_KIND[model.kind])]), source });

const SPEC: ReadonlyMap<string, CatalogEntry> = new Map(CATALOG.map((m) => [m.id, Object.freeze({ id: m.id, owner: m.owner, kind: m.kind, families: m.families, source: 'spec' as const })]));

/** The sheet's models, by upstream name (a channel may serve one under its own name as a public id). */
const BUILTIN: ReadonlyMap<string, CatalogEntry> = new Map(
  PRICE_SHEET.flatMap((vendor) =>
    Object.entries(vendor.models).map(([id, model]) => [id, Object.freeze({ id, owner: vendor.vendor, kind: model.kind, families: FAMILIES_BY_KIND[model.kind], source: 'builtin' as const, ...(model.embedding ? { embedding: model.embedding } : {}) })] as const),
  ),
);

/**
 * The one model catalog (issue 21) that validation, routing, pricing and the console read: the
 * spec's models (always served, with exactly the spec's rules), the operator's (the file's
 * `models:` and the admin API's, the latter winning), and the built-in price sheet's upstream
 * models. A non-spec model is served once a channel maps it. Lookups on the request path are one
 * Map and one Set; everything else is worked out when models or channels change.
 */
export class Catalog implements ModelLookup {
  private file: ReadonlyMap<string, CatalogEntry>;
  private runtime: ReadonlyMap<string, CatalogEntry> = new Map();
  private channels: readonly ChannelModels[] = [];
  /** Non-spec models served, by family. */
  private served = new Map<EndpointFamily, Set<string>>();
  /** Owners of served operator models without `owned_by`: the vendor of the first channel mapping them. */
  private owners = new Map<string, string>();
  private listed = new Map<EndpointFamily, readonly string[]>();

  constructor(fileModels: readonly ModelConfig[] = []) {
    this.file = new Map(fileModels.map((model) => [model.id, entryOf(model, 'file')]));
  }

  /** The admin API's models (database), replacing the previous set. */
  setRuntimeModels(models: readonly ModelConfig[]): void {
    this.runtime = new Map(models.map((model) => [model.id, entryOf(model, 'runtime')]));
    this.rebuild();
  }

  /** Every channel, enabled or not: a disabled channel's model is still a model of the gateway. */
  setChannels(channels: readonly ChannelModels[]): void {
    this.channels = channels;
    this.rebuild();
  }

  /** The entry of any model the gateway knows, served or not. */
  find(id: string): CatalogEntry | undefined {
    const entry = SPEC.get(id) ?? this.runtime.get(id) ?? this.file.get(id) ?? BUILTIN.get(id);
    if (!entry || entry.owner) return entry;
    return { ...entry, owner: this.owners.get(id) ?? 'operator' };
  }

  /** Whether the model stays known without its admin API row (the file or the sheet defines it too). */
  isDefinedBesidesRuntime(id: string): boolean {
    return SPEC.has(id) || this.file.has(id) || BUILTIN.has(id);
  }

  isSpecModel(id: string): boolean {
    return SPEC.has(id);
  }

  isServed(id: string): boolean {
    if (SPEC.has(id)) return true;
    for (const ids of this.served.values()) if (ids.has(id)) return true;
    return false;
  }

  servesModel(family: EndpointFamily, id: string): boolean {
    const spec = SPEC.get(id);
    if (spec) return spec.families.includes(family);
    return this.served.get(family)?.has(id) === true;
  }

  extendsFamily(family: EndpointFamily): boolean {
    return (this.served.get(family)?.size ?? 0) > 0;
  }

  modelsFor(family: EndpointFamily): readonly string[] {
    let list = this.listed.get(family);
    if (!list) {
      list = [...CATALOG.filter((m) => m.families.includes(family)).map((m) => m.id), ...[...(this.served.get(family) ?? [])].sort()];
      this.listed.set(family, list);
    }
    return list;
  }

  /** Every served model: the spec's in its order, then the others sorted. */
  servedModels(): CatalogEntry[] {
    const others = new Set<string>();
    for (const ids of this.served.values()) for (const id of ids) others.add(id);
    return [...SPEC.values(), ...[...others].sort().map((id) => this.find(id)!)];
  }

  /** The operator's own entries (file and admin API; the latter wins), for the admin views. */
  operatorModels(): CatalogEntry[] {
    const ids = new Set([...this.file.keys(), ...this.runtime.keys()]);
    return [...ids].sort().map((id) => this.find(id)!);
  }

  private rebuild(): void {
    const served = new Map<EndpointFamily, Set<string>>();
    const owners = new Map<string, string>();
    for (const channel of this.channels) {
      for (const id of Object.keys(channel.models)) {
        if (SPEC.has(id) || owners.has(id)) continue;
        const entry = this.runtime.get(id) ?? this.file.get(id) ?? BUILTIN.get(id);
        if (!entry) continue;
        owners.set(id, channel.vendor);
        for (const family of entry.families) (served.get(family) ?? served.set(family, new Set()).get(family)!).add(id);
      }
    }
    this.served = served;
    this.owners = owners;
    this.listed = new Map();
  }
}
