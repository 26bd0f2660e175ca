// Every action the code can write to a document's history, and every event kind, has its words in
// Spanish and English. The actions are read from the code itself: the TypeScript checker gives the
// type of the `action` of every appendHistory call (a literal, a choice between literals, a
// parameter's union), so an action added to a use case without its label fails here.
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { EVENT_KINDS } from '../../src/domain/events/event-types.js';
import { eventLabel } from '../../src/domain/events/event-labels.js';
import { historyLabels } from '../../src/domain/history/history-labels.js';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Each appendHistory call in src/: where it is, and the string literals its `action` can be (null: not a literal type). */
function appendedActions(): { where: string; actions: string[] | null }[] {
  const files = sourceFiles(resolve('src'));
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const found: { where: string; actions: string[] | null }[] = [];
  for (const file of program.getSourceFiles()) {
    if (!file.fileName.startsWith(resolve('src'))) {
      continue;
    }
    const visit = (node: ts.Node) => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'appendHistory') {
        const entry = node.arguments[1];
        const where = `${file.fileName.slice(file.fileName.indexOf('src/'))}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
        const prop =
          entry && ts.isObjectLiteralExpression(entry)
            ? entry.properties.find((p) => p.name && ts.isIdentifier(p.name) && p.name.text === 'action')
            : undefined;
        if (!prop || !(ts.isPropertyAssignment(prop) || ts.isShorthandPropertyAssignment(prop))) {
          found.push({ where, actions: null });
        } else {
          // `{ action }`: the variable's own type, before the object literal widens it.
          const type = ts.isPropertyAssignment(prop)
            ? checker.getTypeAtLocation(prop.initializer)
            : checker.getTypeOfSymbolAtLocation(checker.getShorthandAssignmentValueSymbol(prop)!, prop);
          const parts = type.isUnion() ? type.types : [type];
          found.push({
            where,
            actions: parts.every((p) => p.isStringLiteral()) ? parts.map((p) => (p as ts.StringLiteralType).value) : null,
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

describe('history and event words', () => {
  it('every action the code appends to a history has a label in Spanish and in English', () => {
    const calls = appendedActions();
    // The scan sees the calls: signing, rejecting, the universal rendition, NOM-151 stamps among them.
    expect(calls.length).toBeGreaterThan(30);
    expect(calls.filter((c) => c.actions === null).map((c) => c.where)).toEqual([]);
    const actions = [...new Set(calls.flatMap((c) => c.actions ?? []))].sort();
    expect(actions).toEqual(expect.arrayContaining(['signed', 'rejected', 'universal_signed', 'nom151_stamped', 'expired', 'cancelled']));
    const es = historyLabels('es');
    const en = historyLabels('en');
    const unlabelled = actions.filter((a) => es.action(a) === a || en.action(a) === a || !es.action(a).trim() || !en.action(a).trim());
    expect(unlabelled).toEqual([]);
    // Two actions never read the same: the reader could not tell them apart.
    expect(new Set(actions.map((a) => es.action(a))).size).toBe(actions.length);
    expect(new Set(actions.map((a) => en.action(a))).size).toBe(actions.length);
  });

  it('every kind of actor appendHistory accepts is said in words in both languages', () => {
    for (const lang of ['es', 'en'] as const) {
      const l = historyLabels(lang);
      // A signer's id stands only when the document no longer names that signer (the panel and the PDF name them).
      expect(['account', 'system', 'public'].filter((a) => l.actor(a) === a || !l.actor(a).trim())).toEqual([]);
    }
    expect(historyLabels('en').actor('public')).toBe('Someone with the document link');
    expect(historyLabels('es').actor('public')).toBe('Alguien con el enlace del documento');
  });

  it('every event kind has a label in Spanish and in English', () => {
    for (const lang of ['es', 'en'] as const) {
      const words = EVENT_KINDS.map((k) => eventLabel(k, lang));
      expect(EVENT_KINDS.filter((k, i) => words[i] === k || !words[i].trim())).toEqual([]);
      expect(new Set(words).size).toBe(EVENT_KINDS.length);
    }
    expect(eventLabel('universal_signed', 'en')).toBe('Universal rendition signed');
    expect(eventLabel('universal_signed', 'es')).toBe('Versión universal firmada');
  });

  it('an action or event kind the labels do not know is shown by its identifier, never dropped', () => {
    expect(historyLabels('en').action('some_future_action')).toBe('some_future_action');
    expect(eventLabel('some_future_event', 'es')).toBe('some_future_event');
  });
});
