/** Whether the gateway knows a model id now (the catalog's answer). */
export type KnownModel = (id: string) => boolean;

/**
 * A model list as the APIs show it (issue 35): without models the gateway no longer knows, so a
 * model deleted without pruning vanishes from allowances and keys, and is never granted again.
 */
export const knownModelsOnly = (models: readonly string[] | null, known: KnownModel | undefined): string[] | null =>
  models === null ? null : known ? models.filter(known) : [...models];
