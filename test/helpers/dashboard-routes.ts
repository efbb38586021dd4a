/**
 * The dashboard's route table as the TypeScript checker sees it: every path of `ApiRoutes` (the
 * only paths the dashboard's API client accepts) and of `ApiLinks` (the only paths its links are
 * built with), by session kind and method, from dashboard/src/api-types.ts compiled with the
 * dashboard's own tsconfig. A path pattern is expanded into one concrete path per alternative:
 * `${number}` becomes `1`, `${string}` becomes `x`, unions are spelled out.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const DASHBOARD = join(dirname(fileURLToPath(import.meta.url)), '../../dashboard');

export type DashboardRoute = {
  table: 'ApiRoutes' | 'ApiLinks';
  session: string;
  method: string;
  /** The pattern as written (`${number}` kept), for messages. */
  pattern: string;
  /** A concrete path of it, query string included. */
  path: string;
  /** Whether the query string is literal (then checked) rather than a `${string}` placeholder. */
  literalQuery: boolean;
};

type Piece = { pattern: string; path: string; placeholder: boolean };

/** Each alternative of a path type: literal text, `${number}`, `${string}`, unions spelled out. */
function expand(checker: ts.TypeChecker, type: ts.Type): Piece[] {
  if (type.flags & ts.TypeFlags.Never) return [];
  if (type.isUnion()) return type.types.flatMap((t) => expand(checker, t));
  if (type.isStringLiteral()) return [{ pattern: type.value, path: type.value, placeholder: false }];
  if (type.flags & ts.TypeFlags.Number) return [{ pattern: '${number}', path: '1', placeholder: true }];
  if (type.flags & ts.TypeFlags.String) return [{ pattern: '${string}', path: 'x', placeholder: true }];
  if (type.flags & ts.TypeFlags.TemplateLiteral) {
    const { texts, types } = type as ts.TemplateLiteralType;
    let out: Piece[] = [{ pattern: texts[0] ?? '', path: texts[0] ?? '', placeholder: false }];
    types.forEach((t, i) => {
      const next = expand(checker, t);
      const text = texts[i + 1] ?? '';
      out = out.flatMap((a) =>
        next.map((b) => ({
          pattern: a.pattern + b.pattern + text,
          path: a.path + b.path + text,
          // Only a placeholder after the `?` makes the query string not literal.
          placeholder: a.placeholder || (b.placeholder && a.path.includes('?')),
        })),
      );
    });
    return out;
  }
  throw new Error(`a path type the route table check does not read: ${checker.typeToString(type)}`);
}

function propertiesOf(checker: ts.TypeChecker, type: ts.Type, at: ts.Node): Array<[string, ts.Type]> {
  return checker.getPropertiesOfType(type).map((p) => [p.name, checker.getTypeOfSymbolAtLocation(p, at)]);
}

/** Every path of the dashboard's `ApiRoutes` and `ApiLinks`. */
export function dashboardRoutes(): DashboardRoute[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(DASHBOARD, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('dashboard/tsconfig.json did not parse');
  const file = join(DASHBOARD, 'src/api-types.ts');
  const program = ts.createProgram({ rootNames: [file], options: config.options });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`${file} is not in the program`);
  const routes: DashboardRoute[] = [];
  for (const table of ['ApiRoutes', 'ApiLinks'] as const) {
    const decl = source.statements.find(
      (s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === table,
    );
    if (!decl) throw new Error(`api-types.ts declares no ${table}`);
    for (const [session, methods] of propertiesOf(checker, checker.getTypeAtLocation(decl.name), decl)) {
      for (const [method, entries] of propertiesOf(checker, methods, decl)) {
        // ApiRoutes: each entry is a route object whose `path` is the pattern; ApiLinks: the pattern itself.
        const members = entries.isUnion() ? entries.types : [entries];
        const paths = members.flatMap((m) => {
          if (table === 'ApiLinks') return [m];
          const path = checker.getPropertyOfType(m, 'path');
          return path ? [checker.getTypeOfSymbolAtLocation(path, decl)] : [];
        });
        for (const p of paths.flatMap((t) => expand(checker, t)))
          routes.push({
            table,
            session,
            method,
            pattern: p.pattern,
            path: p.path,
            literalQuery: p.path.includes('?') && !p.placeholder,
          });
      }
    }
  }
  return routes;
}
