import type { Static, TObject } from 'typebox';
import type { ModelLookup } from '../contracts/model-lookup.js';
import type { EndpointFamily } from '../contracts/endpoint-family.js';
import { GatewayError, isGatewayError } from '../errors.js';
import { compileValidator, type Validator } from './compile.js';

/** A validator that also takes the catalog: the set of models it accepts changes at run time. */
export type CatalogValidator<T> = (value: unknown, catalog?: ModelLookup) => T;

const MODEL_ENUM_MESSAGE = "'model' must be one of: ";

/**
 * The spec's schema for a family whose `model` is an enumeration (issue 21). Spec models go
 * through the spec's compiled schema, untouched; a model the catalog serves beyond them goes
 * through the same schema with `model` left a plain string, so every other rule still holds. The
 * catalog check is one Set lookup. A refused model is told the whole list, the catalog's included.
 */
export function modelKeyedValidator<S extends TObject>(family: EndpointFamily, schema: S): CatalogValidator<Static<S>> {
  const spec = compileValidator(schema);
  const open = compileValidator(withOpenModel(schema));
  const specModels = new Set(modelEnumOf(schema));
  return (value, catalog) => {
    const model = value && typeof value === 'object' ? (value as { model?: unknown }).model : undefined;
    if (catalog && typeof model === 'string' && !specModels.has(model) && catalog.servesModel(family, model)) return open(value);
    return widenModelError(spec, value, family, catalog);
  };
}

/** Runs a spec validator; its enum refusal of `model` then lists the catalog's models of the family. */
export function widenModelError<T>(validate: Validator<T>, value: unknown, family: EndpointFamily, catalog: ModelLookup | undefined): T {
  try {
    return validate(value);
  } catch (error) {
    throw catalog ? withCatalogModels(error, family, catalog) : error;
  }
}

export function withCatalogModels(error: unknown, family: EndpointFamily, catalog: ModelLookup): unknown {
  if (!isGatewayError(error) || error.param !== 'model' || !error.message.startsWith(MODEL_ENUM_MESSAGE) || !catalog.extendsFamily(family)) return error;
  const all = catalog.modelsFor(family);
  return new GatewayError('GW_REQ_INVALID_PARAM', `${MODEL_ENUM_MESSAGE}${all.join(', ')}`, { param: 'model' });
}

/**
 * A refused model told to a key with a model list (issue 35): the list names only the models this
 * key may use, never the whole catalog (which would tell a key holder about models not theirs).
 */
export function narrowModelListToKey(error: GatewayError, keyModels: readonly string[] | null | undefined): GatewayError {
  if (!keyModels || error.param !== 'model' || !error.message.startsWith(MODEL_ENUM_MESSAGE)) return error;
  const listed = error.message.slice(MODEL_ENUM_MESSAGE.length).split(', ');
  const usable = listed.filter((model) => keyModels.includes(model));
  const message = usable.length > 0 ? `${MODEL_ENUM_MESSAGE}${usable.join(', ')}` : "'model' names no model this API key may use on this endpoint";
  return new GatewayError('GW_REQ_INVALID_PARAM', message, { param: 'model' });
}

function modelEnumOf(schema: TObject): string[] {
  const model = (schema.properties as Record<string, { enum?: unknown[] }>).model;
  return (model?.enum ?? []).filter((value): value is string => typeof value === 'string');
}

/** The same object schema with `model` any string (plain JSON Schema: TypeBox schemas are data). */
export function withOpenModel<S extends TObject>(schema: S): S {
  return { ...schema, properties: { ...schema.properties, model: { type: 'string' } } } as S;
}
