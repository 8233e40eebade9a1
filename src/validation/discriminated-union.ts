import { Type, type Static, type TObject, type TUnsafe } from 'typebox';

/**
 * A union picked by a tag property (`type`), validated with Ajv's discriminator so errors come
 * from the branch the client chose ("'image_url.url' is required"), not from every branch.
 */
export function discriminatedUnion<T extends TObject[]>(tag: string, branches: [...T]): TUnsafe<Static<T[number]>> {
  return Type.Unsafe<Static<T[number]>>({
    type: 'object',
    required: [tag],
    discriminator: { propertyName: tag },
    oneOf: branches,
  });
}
