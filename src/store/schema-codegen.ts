// Writes store/schema.ts from a migrated database, so the row types Kysely checks queries against
// are the tables the migrations made: a renamed or dropped column no longer compiles.
// scripts/generate-store-schema.ts runs it; test/integration/store-schema.test.ts compares the result
// with the committed file.
import type pg from 'pg';

interface ColumnFacts {
  table_name: string;
  column_name: string;
  is_nullable: 'YES' | 'NO';
  column_default: string | null;
  is_identity: 'YES' | 'NO';
  udt_name: string;
}

/**
 * Names for the value sets of CHECK (column in (...)) constraints that code outside the store
 * speaks of; another column with the same values gets the same name.
 */
const NAMED_VALUE_SETS: Record<string, { name: string; doc: string }> = {
  'document_sets.status': { name: 'SetStatus', doc: 'The state of a document set.' },
  'documents.status': { name: 'DocumentStatus', doc: 'The state of a document.' },
  'templates.type': { name: 'TemplateType', doc: 'The engine a template renders with.' },
  'notifications.state': { name: 'DeliveryState', doc: 'The state of a notification or of one of its deliveries.' },
  'endorsements.type': { name: 'EndorsementType', doc: 'The kind of an endorsement.' },
  'packages.kind': { name: 'PieceKind', doc: 'A kind of billable piece (decisions.md "Accounts and packages").' },
  'stamps.subject': { name: 'StampSubject', doc: "What a stamp covers: a rendition of a document, or a client's hash or PDF." },
  'subscriptions.event': { name: 'EventKind', doc: 'An event an account can subscribe to and be notified of.' },
};

/** The formatter's line width (biome.json): a longer union goes one member a line, as it writes it. */
const LINE_WIDTH = 140;

/**
 * Columns whose values a constraint cannot say (no CHECK), typed by the named set the code
 * writes into them.
 */
const COLUMN_VALUE_SETS: Record<string, string> = {
  'documents.status_before_delete': 'documents.status',
};

const HEADER = `// Row types of the tables, as Kysely sees them: generated from the migrated database by
// scripts/generate-store-schema.ts (\`node bin/run-ts.js scripts/generate-store-schema.ts\`); do not edit.
// test/integration/store-schema.test.ts fails when this file and the migrations disagree.
import type { ColumnType, Generated } from 'kysely';

/** timestamptz: read as a Date, written as a Date or an ISO 8601 string. */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null, Date | string | null>;
/** jsonb: read parsed, written as JSON text (pg would write a JavaScript array as a PostgreSQL array). */
type Json = ColumnType<unknown, string, string>;
type NullableJson = ColumnType<unknown, string | null, string | null>;
/** A column with a default (or an identity): optional on insert. */
type Defaulted<C> = C extends ColumnType<infer S, infer I, infer U> ? ColumnType<S, I | undefined, U> : Generated<C>;
`;

/** The text of store/schema.ts for the tables of the database's public schema. */
export async function generateSchemaSource(client: pg.ClientBase): Promise<string> {
  const columns = (
    await client.query<ColumnFacts>(
      `select c.table_name, c.column_name, c.is_nullable, c.column_default, c.is_identity, c.udt_name
         from information_schema.columns c
         join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
        where c.table_schema = 'public' and t.table_type = 'BASE TABLE'
        order by c.table_name, c.ordinal_position`,
    )
  ).rows;
  const checks = await valueSets(client);
  const named = new Map<string, string>();
  for (const [column, { name }] of Object.entries(NAMED_VALUE_SETS)) {
    const values = checks.get(column);
    if (!values) {
      throw new Error(`schema codegen: ${column} has no CHECK (... in (...)) constraint to name ${name}`);
    }
    named.set(unionOf(values), name);
  }
  const tables = new Map<string, string[]>();
  for (const c of columns) {
    const key = `${c.table_name}.${c.column_name}`;
    const values = checks.get(key) ?? checks.get(COLUMN_VALUE_SETS[key] ?? '');
    const lines = tables.get(c.table_name) ?? [];
    lines.push(fit(`  ${c.column_name}:`, columnType(c, values, named), '    '));
    tables.set(c.table_name, lines);
  }
  const out = [HEADER];
  for (const [column, { name, doc }] of Object.entries(NAMED_VALUE_SETS)) {
    out.push(`/** ${doc} */\n${fit(`export type ${name} =`, unionOf(checks.get(column)!), '  ')}\n`);
  }
  for (const [table, lines] of tables) {
    out.push(`/** A row of \`${table}\`. */\nexport interface ${interfaceName(table)} {\n${lines.join('\n')}\n}\n`);
  }
  const entries = [...tables.keys()].map((t) => `  ${t}: ${interfaceName(t)};`);
  out.push(`/** Every table of the database, for Kysely<Database>. */\nexport interface Database {\n${entries.join('\n')}\n}\n`);
  return out.join('\n');
}

/** The allowed values of each column with a CHECK (column in ('a', 'b', ...)) constraint. */
async function valueSets(client: pg.ClientBase): Promise<Map<string, string[]>> {
  const rows = (
    await client.query<{ table_name: string; column_name: string; def: string }>(
      `select rel.relname as table_name, att.attname as column_name, pg_get_constraintdef(con.oid) as def
         from pg_constraint con
         join pg_class rel on rel.oid = con.conrelid
         join pg_namespace n on n.oid = rel.relnamespace
         join pg_attribute att on att.attrelid = con.conrelid and att.attnum = con.conkey[1]
        where con.contype = 'c' and n.nspname = 'public' and cardinality(con.conkey) = 1`,
    )
  ).rows;
  const sets = new Map<string, string[]>();
  for (const r of rows) {
    // PostgreSQL prints `x in ('a', 'b')` back as `(x = ANY (ARRAY['a'::text, 'b'::text]))`.
    const m = /^CHECK \(\((\w+) = ANY \(ARRAY\[(.*)\]\)\)\)$/.exec(r.def);
    if (!m || m[1] !== r.column_name) {
      continue;
    }
    const values = [...m[2].matchAll(/'((?:[^']|'')*)'::text/g)].map((v) => v[1].replaceAll("''", "'"));
    sets.set(`${r.table_name}.${r.column_name}`, values);
  }
  return sets;
}

/** `head type;` on one line, or a long union one member a line. */
function fit(head: string, type: string, indent: string): string {
  const line = `${head} ${type};`;
  if (line.length <= LINE_WIDTH || !type.includes(' | ')) {
    return line;
  }
  return `${head}\n${type
    .split(' | ')
    .map((m) => `${indent}| ${m}`)
    .join('\n')};`;
}

function unionOf(values: string[]): string {
  return values.map((v) => `'${v.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`).join(' | ');
}

function interfaceName(table: string): string {
  return `${table.replace(/(^|_)([a-z0-9])/g, (_, __, ch: string) => ch.toUpperCase())}Table`;
}

function columnType(c: ColumnFacts, values: string[] | undefined, named: Map<string, string>): string {
  const nullable = c.is_nullable === 'YES';
  const defaulted = c.column_default !== null || c.is_identity === 'YES';
  let base: string;
  switch (c.udt_name) {
    case 'timestamptz':
    case 'timestamp':
    case 'date':
      base = nullable ? 'NullableTimestamp' : 'Timestamp';
      return defaulted ? `Defaulted<${base}>` : base;
    case 'json':
    case 'jsonb':
      base = nullable ? 'NullableJson' : 'Json';
      return defaulted ? `Defaulted<${base}>` : base;
    default:
      base = values ? (named.get(unionOf(values)) ?? unionOf(values)) : scalarType(c);
  }
  const t = nullable ? `${base} | null` : base;
  return defaulted ? `Generated<${t}>` : t;
}

/** How node-postgres returns a value of this type (int8 and numeric as strings: they exceed a double). */
function scalarType(c: ColumnFacts): string {
  const array = c.udt_name.startsWith('_');
  const udt = array ? c.udt_name.slice(1) : c.udt_name;
  let t: string;
  switch (udt) {
    case 'text':
    case 'varchar':
    case 'bpchar':
    case 'uuid':
    case 'inet':
    case 'int8':
    case 'numeric':
      t = 'string';
      break;
    case 'int2':
    case 'int4':
    case 'float4':
    case 'float8':
      t = 'number';
      break;
    case 'bool':
      t = 'boolean';
      break;
    case 'bytea':
      t = 'Buffer';
      break;
    default:
      throw new Error(`schema codegen: ${c.table_name}.${c.column_name} has type ${c.udt_name}, which has no TypeScript type here yet`);
  }
  return array ? `${t}[]` : t;
}
