// SQL for templates.
import type { Transaction } from 'kysely';
import type { Db } from './db.js';
import type { Database, TemplateType } from './schema.js';
import type { TemplateType as EngineType, TemplateField, TemplateTable } from '../render/types.js';

/** The database's CHECK on templates.type and the engines name the same types: changing one alone does not compile. */
export const TEMPLATE_TYPES_AGREE: [TemplateType, EngineType] extends [EngineType, TemplateType] ? true : never = true;

export interface TemplateRow {
  name: string;
  type: TemplateType;
  source_sha256: string;
  fields: TemplateField[];
  tables: TemplateTable[];
  created_at: Date;
  updated_at: Date;
}

/** Saves a template; the same name in the same account replaces it (keeping its creation time). */
export async function upsertTemplate(
  db: Db | Transaction<Database>,
  t: { accountId: string; name: string; type: TemplateType; sha256: string; fields: TemplateField[]; tables: TemplateTable[]; at: Date },
): Promise<void> {
  await db
    .insertInto('templates')
    .values({
      account_id: t.accountId,
      name: t.name,
      type: t.type,
      source_sha256: t.sha256,
      fields: JSON.stringify(t.fields),
      tables: JSON.stringify(t.tables),
      created_at: t.at,
      updated_at: t.at,
    })
    .onConflict((oc) =>
      oc.columns(['account_id', 'name']).doUpdateSet((eb) => ({
        type: eb.ref('excluded.type'),
        source_sha256: eb.ref('excluded.source_sha256'),
        fields: eb.ref('excluded.fields'),
        tables: eb.ref('excluded.tables'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}

export async function findTemplate(db: Db, accountId: string, name: string): Promise<TemplateRow | undefined> {
  return (await db
    .selectFrom('templates')
    .select(['name', 'type', 'source_sha256', 'fields', 'tables', 'created_at', 'updated_at'])
    .where('account_id', '=', accountId)
    .where('name', '=', name)
    .executeTakeFirst()) as TemplateRow | undefined;
}

export async function listTemplates(db: Db, accountId: string): Promise<TemplateRow[]> {
  return (await db
    .selectFrom('templates')
    .select(['name', 'type', 'source_sha256', 'fields', 'tables', 'created_at', 'updated_at'])
    .where('account_id', '=', accountId)
    .orderBy('name')
    .execute()) as TemplateRow[];
}
