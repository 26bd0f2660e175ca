// GET /developers/templates and GET /developers/template/{name}/fields: an account's templates,
// scoped to the account that signed the request (another account's template is not found).
import { AppError } from '../errors.js';
import type { Deps } from '../deps.js';
import { findTemplate, listTemplates as listRows } from '../../store/templates-repo.js';
import type { TemplateFields, TemplateList } from '../../schemas/templates.js';

export async function listTemplates(deps: Pick<Deps, 'db'>, q: { accountId: string }): Promise<TemplateList> {
  const rows = await listRows(deps.db, q.accountId);
  return {
    templates: rows.map((t) => ({
      template_title: t.name,
      template_type: t.type,
      fields: t.fields.length,
      tables: t.tables.length,
      created_at: t.created_at.toISOString(),
      updated_at: t.updated_at.toISOString(),
    })),
  };
}

export async function getTemplateFields(deps: Pick<Deps, 'db'>, q: { accountId: string; name: string }): Promise<TemplateFields> {
  const t = await findTemplate(deps.db, q.accountId, q.name);
  if (!t) {
    throw new AppError('TEMPLATE_NOT_FOUND', `no template named ${JSON.stringify(q.name)}`);
  }
  return { template_title: t.name, template_type: t.type, fields: t.fields, tables: t.tables };
}
