import type { ConfigSource, FileConfig } from '../config/schema.js';
import type { Catalog } from './catalog.js';

/**
 * Catalog references in the configuration (issue 21), checked at start once the database's models
 * are known: a channel's public ids, prices and tiers must name a model the gateway knows (the
 * spec's, the file's `models:`, the admin API's, or the built-in sheet's), and the file may not
 * redefine a spec model. A typo would otherwise boot and refuse every request, or price a model
 * at nothing; the error names the field and its line.
 */
export function checkCatalogReferences(file: FileConfig, catalog: Catalog, source?: ConfigSource): void {
  const fail = (segments: Array<string | number>, problem: string): never => {
    const line = source?.lineOf(segments);
    throw new Error(`${source?.path ?? 'config'}: '${segments.join('.')}'${line === undefined ? '' : ` (line ${line})`} ${problem}`);
  };
  const unknown = "is not a model the gateway knows: declare it under 'models:' (id and kind), add it in the console or with POST /admin/api/models, or use a model of the built-in price sheet";
  (file.models ?? []).forEach((model, index) => {
    if (catalog.isSpecModel(model.id)) fail(['models', index, 'id'], `'${model.id}' is a model of the specification; it is served already and cannot be redefined`);
  });
  (file.channels ?? []).forEach((channel, index) => {
    for (const id of Object.keys(channel.models)) if (!catalog.find(id)) fail(['channels', index, 'models', id], unknown);
    for (const id of Object.keys(channel.prices ?? {})) {
      if (!Object.hasOwn(channel.models, id)) fail(['channels', index, 'prices', id], `names a model channel '${channel.name}' does not serve`);
    }
  });
  for (const model of Object.keys(file.prices ?? {})) if (!catalog.find(model)) fail(['prices', model], unknown);
  for (const [tier, models] of Object.entries(file.tiers ?? {})) {
    for (const model of Object.keys(models)) if (model !== 'default' && !catalog.find(model)) fail(['tiers', tier, model], `${unknown} (or 'default')`);
  }
}
