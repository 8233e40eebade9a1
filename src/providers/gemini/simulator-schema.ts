/**
 * Gemini's `Schema` (an OpenAPI 3.0 subset: `type: "OBJECT"`, `nullable`, `propertyOrdering`)
 * as the JSON Schema the sampler reads; `parametersJsonSchema` / `responseJsonSchema` are
 * already JSON Schema and pass unchanged (gemini.md "Request").
 */
export function geminiSchemaToJsonSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(geminiSchemaToJsonSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (key === 'propertyOrdering' || key === 'nullable') continue;
    if (key === 'type' && typeof value === 'string') out.type = value.toLowerCase();
    else if (key === 'properties' && value && typeof value === 'object') {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, geminiSchemaToJsonSchema(sub)]));
    } else if (key === 'items' || key === 'anyOf') out[key] = geminiSchemaToJsonSchema(value);
    else out[key] = value;
  }
  if ((schema as { nullable?: unknown }).nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  // Gemini rejects object schemas without properties; the sampler would invent keys for them.
  if (out.type === 'object' && out.properties === undefined) out.additionalProperties = false;
  return out;
}
