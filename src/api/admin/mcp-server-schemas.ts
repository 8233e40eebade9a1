import { Type, type TSchema } from 'typebox';
import { McpServerSchema } from '../../config/schema.js';
import { compileValidator } from '../../validation/compile.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const fields = McpServerSchema.properties;

/** POST /admin/api/mcp-servers: the fields of a configuration file's `mcp_servers` entry. */
export const CreateMcpServerBody = McpServerSchema;
export const validateCreateMcpServer = compileValidator(CreateMcpServerBody);

/** PATCH: any field but the name; null removes it (auth: null sends nothing upstream). Absent fields, credentials included, stay. */
export const PatchMcpServerBody = Type.Object(
  {
    url: Type.Optional(fields.url),
    description: Type.Optional(Nullable(fields.description)),
    auth: Type.Optional(Nullable(fields.auth)),
    headers: Type.Optional(Nullable(fields.headers)),
    tools: Type.Optional(Nullable(fields.tools)),
    timeout_ms: Type.Optional(Nullable(fields.timeout_ms)),
    max_result_bytes: Type.Optional(Nullable(fields.max_result_bytes)),
    enabled: Type.Optional(fields.enabled),
  },
  { additionalProperties: false },
);
export const validatePatchMcpServer = compileValidator(PatchMcpServerBody);

export const McpServerParams = Type.Object({ name: Type.String() });
