#!/usr/bin/env node
// Lists what each first-party plugin takes from another one: the names it imports from another plugin's
// package, and every SQL text in its sources that names a table another plugin creates. Used for issue 17's
// before/after note; `--json` prints the raw lists. Foreign keys in migrations are listed apart: they are the
// schema's references (accounts(id) above all), not reads or writes of another plugin's rows.
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const ts = require('typescript');
const root = join(import.meta.dirname, '..');
const pluginsDir = join(root, 'plugins');
const plugins = readdirSync(pluginsDir).filter((d) => existsSync(join(pluginsDir, d, 'package.json'))).sort();

function walk(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return walk(path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

// Which plugin owns which table or view: the CREATE statements of its migrations.
// Views are an owner's documented read interface: reading one is allowed and listed apart.
const owner = new Map();
const views = new Set();
for (const plugin of plugins) {
  for (const file of walk(join(pluginsDir, plugin, 'src'))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/CREATE\s+(?:UNLOGGED\s+|OR\s+REPLACE\s+)?(TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?"?([a-z_][a-z0-9_]*)/gi)) {
      owner.set(m[2].toLowerCase(), plugin);
      if (m[1].toUpperCase() === 'VIEW') views.add(m[2].toLowerCase());
    }
  }
}
// Tables whose rows another plugin's triggers may read under a contract the owner documents and tests.
const ROW_CONTRACTS = { matches: 'MATCH_ROW_CONTRACT' };

const imports = []; // { plugin, from, names, file, kind }
const sql = []; // { plugin, table, owner, file, line, text, kind }
// Keywords in capitals, as this codebase writes SQL: English prose ("a case from matches") is not SQL.
const SQL_WORD = /\b(SELECT|INSERT|UPDATE|DELETE|FROM|JOIN|INTO|TRIGGER|REFERENCES|TABLE)\b/;

for (const plugin of plugins) {
  for (const kind of ['src', 'test']) {
    for (const file of walk(join(pluginsDir, plugin, kind))) {
      const text = readFileSync(file, 'utf8');
      const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
      const rel = relative(root, file);
      const visit = (node) => {
        if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
          const spec = node.moduleSpecifier.text;
          const m = /^@filigrane\/plugin-([a-z0-9-]+)(\/.*)?$/.exec(spec);
          // @filigrane/plugin-api is the public package every plugin depends on, not a plugin.
          if (m && m[1] !== plugin && m[1] !== 'api') {
            const names = [];
            const clause = ts.isImportDeclaration(node) ? node.importClause : undefined;
            if (clause?.name) names.push(clause.name.text);
            const bindings = clause?.namedBindings ?? (ts.isExportDeclaration(node) ? node.exportClause : undefined);
            if (bindings && ts.isNamespaceImport(bindings)) names.push(`* as ${bindings.name.text}`);
            else if (bindings && (ts.isNamedImports(bindings) || ts.isNamedExports(bindings))) {
              for (const el of bindings.elements) names.push((el.propertyName ?? el.name).text);
            } else if (ts.isExportDeclaration(node) && !bindings) names.push('*');
            imports.push({ plugin, from: m[1] + (m[2] ?? ''), names, file: rel, kind });
          }
        }
        if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
          const literal = node.getText(source);
          if (SQL_WORD.test(literal)) {
            for (const [table, tableOwner] of owner) {
              if (tableOwner === plugin) continue;
              // The table in a SQL position: after FROM/JOIN/INTO/UPDATE/ON/TABLE/REFERENCES, as a row type or array.
              const re = new RegExp(`(?:\\b(?:FROM|JOIN|INTO|UPDATE|ON|TABLE|REFERENCES)\\s+(?:ONLY\\s+)?${table}\\b|::${table}\\b|\\b${table}\\[\\])`);
              if (!re.test(literal)) continue;
              const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
              const fk = new RegExp(`REFERENCES\\s+${table}\\b`, 'i').test(literal);
              const contract = ROW_CONTRACTS[table] && text.includes(ROW_CONTRACTS[table]);
              const words = literal.replace(/\s+/g, ' ');
              const at = words.search(re);
              sql.push({ plugin, table, owner: tableOwner, file: rel, line, kind: fk ? 'foreign-key' : views.has(table) ? `${kind}: owner's documented view` : contract ? `${kind}: owner's row contract (${ROW_CONTRACTS[table]})` : kind, text: words.slice(Math.max(0, at - 60), at + 60) });
            }
          }
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
  }
}

if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ imports, sql }, null, 2));
} else {
  for (const kind of ['src', 'test']) {
    const rows = imports.filter((i) => i.kind === kind);
    console.log(`## Cross-plugin imports (${kind}): ${rows.length} import statements`);
    const byPair = new Map();
    for (const i of rows) {
      const key = `${i.plugin} -> ${i.from}`;
      const set = byPair.get(key) ?? new Set();
      i.names.forEach((n) => set.add(n));
      byPair.set(key, set);
    }
    for (const [pair, names] of [...byPair].sort()) console.log(`- ${pair}: ${[...names].sort().join(', ')}`);
    console.log();
  }
  const kinds = [...new Set(['src', 'test', ...sql.map((s) => s.kind), 'foreign-key'])];
  for (const kind of kinds) {
    const rows = sql.filter((s) => s.kind === kind);
    console.log(`## SQL naming another plugin's table (${kind}): ${rows.length}`);
    for (const s of rows) console.log(`- ${s.plugin} -> ${s.owner}.${s.table} at ${s.file}:${s.line}: …${s.text.trim()}…`);
    console.log();
  }
}
