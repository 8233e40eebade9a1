import { createRequire } from 'node:module';
import type { FastifySchemaCompiler, FastifyServerOptions } from 'fastify';
import { compileValidator, toFastifyValidator } from './compile.js';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type SerializerFactory = NonNullable<CompilersFactory['buildSerializer']>;
type SerializerCompiler = ReturnType<SerializerFactory>;

/** Fastify's own response serializer factory (fast-json-stringify), from Fastify's own dependency. */
function defaultSerializers(): SerializerFactory {
  const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
  return (fastifyRequire('@fastify/fast-json-stringify-compiler') as () => SerializerFactory)();
}

const validators: FastifySchemaCompiler<unknown> = ({ schema }) => toFastifyValidator(compileValidator(schema as never));

/**
 * Fastify's schema compilers (`schemaController.compilersFactory`), both lazy (issue 24).
 * Request bodies, queries and params go through our Ajv (compile.ts, each schema compiled at its
 * first use), so Fastify never loads an Ajv of its own. Response schemas (the admin API's) get
 * Fastify's default serializer, generated when a route first answers: generating them all at
 * start-up loaded fast-json-stringify and held their code in every gateway process.
 */
export const lazyCompilers: CompilersFactory = {
  // Fastify's typings name its Ajv's types here; any function from a route schema to a validator works.
  buildValidator: (() => validators) as unknown as CompilersFactory['buildValidator'],
  buildSerializer: (externalSchemas, serializerOptions) => {
    let build: SerializerCompiler | undefined;
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined;
      return (data: unknown) => {
        serialize ??= (build ??= defaultSerializers()(externalSchemas, serializerOptions))(route);
        return serialize(data);
      };
    };
  },
};
