import type { EndpointFamily } from './endpoint-family.js';

/** What validation asks of the catalog (the lead's Anthropic-native mode calls it too). */
export interface ModelLookup {
  /** Whether `id` is served on `family`: a spec model of it, or a model a channel maps whose entry lists it. */
  servesModel(family: EndpointFamily, id: string): boolean;
  /** Every model served on `family`: the spec's first, in the spec's order, then the others sorted. */
  modelsFor(family: EndpointFamily): readonly string[];
  /** Whether any model beyond the spec's is served on `family`; with none, validation is exactly the spec's. */
  extendsFamily(family: EndpointFamily): boolean;
}
