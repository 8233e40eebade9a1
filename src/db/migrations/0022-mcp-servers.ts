import type { Kysely, Migration } from 'kysely';
import { columnTypesFor } from '../dialect.js';

/**
 * The MCP gateway (issue 31). `mcp_servers`: upstream MCP servers an operator published, by name;
 * `definition` holds the clear fields as JSON, `secrets` the headers and tokens sealed like a
 * runtime channel's credentials (keys/secret-box.ts). `mcp_sessions`: a client's session with the
 * gateway and the upstream sessions it opened, in the shared store so any instance continues it.
 * `api_keys.mcp`: the servers (and tools) a key may use, JSON; null: none (deny by default).
 */
export const mcpServers: Migration = {
  async up(db: Kysely<unknown>) {
    const { varchar } = columnTypesFor(db);
    await db.schema
      .createTable('mcp_servers')
      .addColumn('name', varchar(64), (c) => c.primaryKey())
      .addColumn('definition', 'text', (c) => c.notNull())
      .addColumn('secrets', 'text')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('mcp_sessions')
      .addColumn('id', varchar(64), (c) => c.primaryKey())
      .addColumn('key_id', varchar(64), (c) => c.notNull())
      .addColumn('scope', varchar(64), (c) => c.notNull())
      .addColumn('upstreams', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('used_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.alterTable('api_keys').addColumn('mcp', 'text').execute();
  },
};
